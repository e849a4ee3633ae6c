import { dominantStructure, type EdgeSummary, type SkewPairCount } from '@tailscope/analysis';
import type { Store } from '../engine/client';
import { duplicatesSql, edgesSql, skewSql, type EdgeScope } from './sql';
import { edgesInScope, storedDuplicatesSql } from './stored';
import { CHUNK_NS } from '../fanouts/tables';
import { coverage } from '../fanouts/cache';
import { uncovered, type Coverage } from '../fanouts/stored';

/**
 * `/api/v1/edges` from the store: every caller -> callee edge with the structure of its
 * repeated calls (edgesSql, one query), the duplicates and the clock skew of the range. Request
 * edges of closed chunks come from `tailscope_edges` (built with the stored fan-outs, same
 * coverage rules: fanouts-cache.ts), the rest is detected live.
 */

interface EdgeRow {
  parentService: string;
  parentOperation: string;
  leafService: string;
  leafOperation: string;
  requests: number;
  calls: number;
  wrappedCalls: number;
  callsP50: number;
  callsMax: number;
  parallelRequests: number;
  poolRequests: number;
  sequentialRequests: number;
  singleRequests: number;
  concurrencyP50: number;
  concurrencyMax: number;
  poolSize: number;
  callLatency: (number | null)[];
  queueWaitMs: (number | null)[];
  shareOfParent: (number | null)[];
}

/** A quantile list as p50..p999, empty sets (NaN, null) as 0. */
const q = (v: readonly (number | null)[]) => {
  const at = (i: number): number => {
    const x = v[i];
    return typeof x === 'number' && Number.isFinite(x) ? x : 0;
  };
  return { p50: at(0), p95: at(1), p99: at(2), p999: at(3) };
};

function toSummary(r: EdgeRow): EdgeSummary {
  const counts = {
    parallel: r.parallelRequests,
    pool: r.poolRequests,
    sequential: r.sequentialRequests,
    single: r.singleRequests,
  };
  const structure = dominantStructure(counts);
  const out: EdgeSummary = {
    parentService: r.parentService,
    parentOperation: r.parentOperation,
    leafService: r.leafService,
    leafOperation: r.leafOperation,
    requests: r.requests,
    calls: r.calls,
    wrappedCalls: r.wrappedCalls,
    callsPerRequest: { p50: r.callsP50, max: r.callsMax },
    structure,
    structureShares: {
      parallel: counts.parallel / r.requests,
      pool: counts.pool / r.requests,
      sequential: counts.sequential / r.requests,
      single: counts.single / r.requests,
    },
    concurrency: { p50: r.concurrencyP50, max: r.concurrencyMax },
    callLatency: q(r.callLatency),
    shareOfParent: q(r.shareOfParent),
  };
  if (structure === 'pool') {
    out.poolSize = r.poolSize;
    out.queueWaitMs = q(r.queueWaitMs);
  }
  return out;
}

/** Every edge whose requests start in scope (edge-summary.ts defines the fields). */
/** Which stored chunks serve `scope`; none when `cache` is false. Read once per request. */
export async function edgeCoverage(
  store: Store,
  scope: { fromNs: bigint; toNs: bigint },
  cache = true,
): Promise<Coverage> {
  return cache ? coverage(store, scope) : uncovered(scope);
}

export async function selectEdges(
  store: Store,
  scope: EdgeScope,
  opts: { cache?: boolean; cov?: Coverage } = {},
): Promise<EdgeSummary[]> {
  // Stored chunks hold no weights: weighted answers are detected live over the whole range.
  const live = scope.weighted === true || !(opts.cache ?? true);
  const cov = live ? uncovered(scope) : (opts.cov ?? (await coverage(store, scope)));
  const rows = await store.query<EdgeRow>(
    edgesSql(edgesInScope(scope, cov), scope.weighted === true),
  );
  return rows.map(toSummary);
}

async function liveDuplicates(store: Store, scope: { fromNs: bigint; toNs: bigint }) {
  if (scope.toNs <= scope.fromNs) return 0;
  const rows = await store.query<{ duplicates: string | number }>(duplicatesSql(scope));
  return Number(rows[0]?.duplicates ?? 0);
}

/**
 * Extra copies of spans stored in [fromNs, toNs): the stored counts of the covered chunks that
 * lie wholly inside the range and of the open chunk's stored buckets (cov.open), plus a live
 * count of the rest (the ragged ends, and everything when a covered chunk has no stored count,
 * as after an upgrade until it is rebuilt).
 */
export async function selectDuplicates(
  store: Store,
  scope: { fromNs: bigint; toNs: bigint },
  opts: { cache?: boolean; cov?: Coverage } = {},
): Promise<number> {
  const cov = opts.cov ?? (await edgeCoverage(store, scope, opts.cache));
  const openFrom = cov.open?.fromNs;
  const whole = cov.chunks.filter(([c]) => {
    const start = BigInt(c) * CHUNK_NS;
    return (
      start >= scope.fromNs &&
      start + CHUNK_NS <= scope.toNs &&
      (openFrom === undefined || start + CHUNK_NS <= openFrom)
    );
  });
  // Counted spans: [lo, hi) of whole chunks, then the open buckets [openFrom, splitNs).
  const parts: { fromNs: bigint; toNs: bigint }[] = [];
  let stored = 0;
  const first = whole[0];
  const last = whole[whole.length - 1];
  if (first && last) {
    const rows = await store.query<{ found: string; duplicates: string }>(
      storedDuplicatesSql(whole),
    );
    if (Number(rows[0]?.found ?? 0) !== whole.length) return liveDuplicates(store, scope);
    stored += Number(rows[0]?.duplicates ?? 0);
    parts.push({ fromNs: BigInt(first[0]) * CHUNK_NS, toNs: (BigInt(last[0]) + 1n) * CHUNK_NS });
  }
  if (openFrom !== undefined && cov.open?.duplicates !== undefined && cov.splitNs > openFrom) {
    stored += Number(cov.open.duplicates);
    parts.push({ fromNs: openFrom, toNs: cov.splitNs });
  }
  if (parts.length === 0) return liveDuplicates(store, scope);
  // The gaps of the range between the counted parts, counted live.
  const gaps: { fromNs: bigint; toNs: bigint }[] = [];
  let at = scope.fromNs;
  for (const p of parts) {
    if (p.fromNs > at) gaps.push({ fromNs: at, toNs: p.fromNs });
    if (p.toNs > at) at = p.toNs;
  }
  if (scope.toNs > at) gaps.push({ fromNs: at, toNs: scope.toNs });
  const live = await Promise.all(gaps.map((g) => liveDuplicates(store, g)));
  return live.reduce((a, b) => a + b, stored);
}

/** Calls whose SERVER answers lay outside them, per host pair, of the requests in range. */
export async function selectSkew(
  store: Store,
  scope: { fromNs: bigint; toNs: bigint },
  opts: { cache?: boolean; cov?: Coverage } = {},
): Promise<SkewPairCount[]> {
  const cov = opts.cov ?? (await edgeCoverage(store, scope, opts.cache));
  return store.query<SkewPairCount>(skewSql(edgesInScope(scope, cov)));
}
