import { quantileInclusive, quantileSummary, sortAscending } from './quantile';
import {
  queueWaitsMs,
  shareOfParent,
  STRUCTURES,
  type RequestEdge,
  type Structure,
} from './structure';
import type { Quantiles } from './types';

/**
 * Per edge (caller operation -> callee operation) over its requests: the reference of
 * `GET /api/v1/edges` (apps/api/src/store/edges-sql.ts computes the same in ClickHouse).
 *
 * - `structure`: the most common structure among requests with >= 2 calls on the edge (ties in
 *   STRUCTURES order: parallel, pool, sequential); `single` when no request has 2.
 * - `structureShares`: share of all requests of each structure.
 * - `poolSize` (structure `pool`): the lower median of the concurrency of its pool requests.
 * - `queueWaitMs` (structure `pool`): quantiles of the queue wait of the calls of pool requests.
 * - Quantiles are type 7; an empty set gives zeros (shareOfParent when no caller span is known).
 */
export interface EdgeSummary {
  parentService: string;
  parentOperation: string;
  leafService: string;
  leafOperation: string;
  requests: number;
  calls: number;
  /** Calls found behind at least one wrapper span. */
  wrappedCalls: number;
  callsPerRequest: { p50: number; max: number };
  structure: Structure;
  structureShares: Record<Structure, number>;
  concurrency: { p50: number; max: number };
  poolSize?: number;
  callLatency: Quantiles;
  queueWaitMs?: Quantiles;
  shareOfParent: Quantiles;
}

const ZERO: Quantiles = { p50: 0, p95: 0, p99: 0, p999: 0 };

const summary = (values: readonly number[]): Quantiles =>
  values.length === 0 ? ZERO : quantileSummary(sortAscending(values));

/** The structure most requests with >= 2 calls had (ties in STRUCTURES order), else single. */
export function dominantStructure(counts: Record<Structure, number>): Structure {
  let best: Structure = 'single';
  let most = 0;
  for (const s of STRUCTURES) {
    if (s === 'single') continue;
    if (counts[s] > most) [best, most] = [s, counts[s]];
  }
  return best;
}

/** The lower median of integers (element ceil(n/2) of the sorted list, 1-based); 0 if empty. */
export function lowerMedian(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length + 1) / 2) - 1] ?? 0;
}

function summarizeOne(edges: readonly RequestEdge[]): EdgeSummary {
  const first = edges[0] as RequestEdge;
  const counts: Record<Structure, number> = { parallel: 0, pool: 0, sequential: 0, single: 0 };
  for (const e of edges) counts[e.structure]++;
  const structure = dominantStructure(counts);
  const n = edges.map((e) => e.calls.length);
  const k = edges.map((e) => e.concurrency);
  const pools = edges.filter((e) => e.structure === 'pool');
  const shares = edges.map(shareOfParent).filter((x): x is number => x !== null);
  const durations = edges.flatMap((e) => e.calls.map((c) => Number(c.endNs - c.startNs) / 1e6));
  const out: EdgeSummary = {
    parentService: first.callerService,
    parentOperation: first.callerOperation,
    leafService: first.leafService,
    leafOperation: first.leafOperation,
    requests: edges.length,
    calls: n.reduce((a, b) => a + b, 0),
    wrappedCalls: edges.reduce((a, e) => a + e.calls.filter((c) => c.wrappers > 0).length, 0),
    callsPerRequest: { p50: quantileInclusive(sortAscending(n), 0.5), max: Math.max(...n) },
    structure,
    structureShares: {
      parallel: counts.parallel / edges.length,
      pool: counts.pool / edges.length,
      sequential: counts.sequential / edges.length,
      single: counts.single / edges.length,
    },
    concurrency: { p50: quantileInclusive(sortAscending(k), 0.5), max: Math.max(...k) },
    callLatency: summary(durations),
    shareOfParent: summary(shares),
  };
  if (structure === 'pool') {
    out.poolSize = lowerMedian(pools.map((e) => e.concurrency));
    out.queueWaitMs = summary(pools.flatMap(queueWaitsMs));
  }
  return out;
}

/**
 * Every edge of the request edges whose first call starts in [fromNs, toNs), ordered by
 * requests (descending), then parent and leaf names. O(calls log calls).
 */
export function summarizeEdges(
  requestEdges: readonly RequestEdge[],
  range: { fromNs: bigint; toNs: bigint },
): EdgeSummary[] {
  const groups = new Map<string, RequestEdge[]>();
  for (const e of requestEdges) {
    if (e.firstStartNs < range.fromNs || e.firstStartNs >= range.toNs) continue;
    const key = JSON.stringify([
      e.callerService,
      e.callerOperation,
      e.leafService,
      e.leafOperation,
    ]);
    const g = groups.get(key);
    if (g) g.push(e);
    else groups.set(key, [e]);
  }
  const by = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return [...groups.values()]
    .map(summarizeOne)
    .sort(
      (a, b) =>
        b.requests - a.requests ||
        by(a.parentService, b.parentService) ||
        by(a.parentOperation, b.parentOperation) ||
        by(a.leafService, b.leafService) ||
        by(a.leafOperation, b.leafOperation),
    );
}
