import type { WidthCount } from '@tailscope/analysis';
import type { Store } from '../engine/client';
import { coverage } from './cache';
import type { LeafScope } from './leaves';
import { fanoutOperationsSql, hostWindowsSql } from './queries';
import type { FanoutScope } from './sql';
import { uncovered } from './stored';
import { fanoutWeightsCte, weightedFanoutOperationsSql } from './weighted';

/**
 * The fan-out analyses over `otel_traces` (DESIGN.md "Definitions"). The heavy work runs in
 * ClickHouse: pairing CLIENT spans with their SERVER children, grouping calls per (parent, leaf
 * operation), the overlap test, per-fan-out order statistics and the quantiles across fan-outs;
 * only small per-operation rows, or one compact binary row of leaf-call columns, come back.
 *
 * Each function here does the I/O: which stored chunks cover the range (fanouts-cache.ts), then
 * one query from a pure builder (fanouts-queries.ts, fanouts-sql.ts, fanouts-stored.ts), whose
 * SQL text is snapshotted in __snapshots__/.
 */

/** One fan-out operation as the SQL aggregates it; Table 1 and the amplification inputs. */
export interface FanoutOperationRow {
  parentService: string;
  parentOperation: string;
  leafService: string;
  leafOperation: string;
  requests: number;
  widthP50: number;
  widthMax: number;
  /** p50, p95, p99, p99.9 across fan-outs, ms. */
  oneLeaf: number[];
  p95Leaves: number[];
  allLeaves: number[];
  thresholdMs: number;
  /** Calls with latency <= threshold, and all calls: F(t) = callsAtMost / calls. */
  callsAtMost: number;
  calls: number;
  widths: WidthCount[];
  /** Fan-outs that ran parallel / through a pool (structure.ts). */
  parallelFanouts: number;
  poolFanouts: number;
  concurrencyP50: number;
  concurrencyMax: number;
  /** Lower median concurrency of the pool fan-outs (0 without any). */
  poolSize: number;
  /** Queue wait quantiles of the pool fan-outs' calls, ms (NaN/null without any). */
  queueWaitMs: (number | null)[];
  /** Tail fan-outs whose straggler waited longer than it ran (queueing.ts). */
  queuedTailFanouts: number;
}

/**
 * Every fan-out operation in scope with Table 1 quantiles, the single-call p99 (or
 * `thresholdMs`), F(t) counts and the width histogram with tail counts, ordered by requests
 * (descending); fanoutOperationsSql says how. `seed` picks the random leaf.
 */
export async function selectFanoutOperations(
  store: Store,
  scope: FanoutScope,
  opts: {
    thresholdMs?: number | undefined;
    seed?: number;
    cache?: boolean;
    weighted?: boolean;
  } = {},
): Promise<FanoutOperationRow[]> {
  const cov = (opts.cache ?? true) ? await coverage(store, scope) : uncovered(scope);
  // Weighted by sampling (fanouts-weighted.ts) only when some span carries a threshold.
  const build = opts.weighted === true ? weightedFanoutOperationsSql : fanoutOperationsSql;
  const q = build(scope, cov, {
    thresholdMs: opts.thresholdMs,
    seed: (opts.seed ?? 1) >>> 0,
  });
  const rows = await store.query<
    Omit<FanoutOperationRow, 'widths'> & {
      histogramWidths: number[];
      histogramFanouts: number[];
      histogramTailFanouts: number[];
    }
  >(q);
  return rows.map((r) => ({
    parentService: r.parentService,
    parentOperation: r.parentOperation,
    leafService: r.leafService,
    leafOperation: r.leafOperation,
    requests: r.requests,
    widthP50: r.widthP50,
    widthMax: r.widthMax,
    oneLeaf: r.oneLeaf,
    p95Leaves: r.p95Leaves,
    allLeaves: r.allLeaves,
    thresholdMs: r.thresholdMs,
    callsAtMost: r.callsAtMost,
    calls: r.calls,
    parallelFanouts: r.parallelFanouts,
    poolFanouts: r.poolFanouts,
    concurrencyP50: r.concurrencyP50,
    concurrencyMax: r.concurrencyMax,
    poolSize: r.poolSize,
    queueWaitMs: r.queueWaitMs,
    queuedTailFanouts: r.queuedTailFanouts,
    widths: r.histogramWidths.map((width, i) => ({
      width,
      fanouts: r.histogramFanouts[i] ?? 0,
      tailFanouts: r.histogramTailFanouts[i] ?? 0,
    })),
  }));
}

/** One (host, window) cell, or the fleet's (host null) cell of a window; ms. */
export interface HostWindowRow {
  host: string | null;
  /** The host's sharing mode in the window (alphabetically first if several known), else 'unknown'. */
  mode: string | null;
  startMs: number;
  calls: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * Per-host and fleet latency per time window for the calls of one leaf operation's fan-outs
 * (hostWindowsSql). Sorted by host (fleet last), then window.
 */
export async function selectHostWindows(
  store: Store,
  scope: LeafScope,
  windowMs: number,
  opts: { cache?: boolean; weighted?: boolean } = {},
): Promise<HostWindowRow[]> {
  const cov = (opts.cache ?? true) ? await coverage(store, scope) : uncovered(scope);
  const weights = opts.weighted === true ? fanoutWeightsCte(scope) : undefined;
  return store.query<HostWindowRow>(hostWindowsSql(scope, cov, windowMs, weights));
}

// Loading leaf calls and the stored fan-outs live in their own modules; callers import them here.
export { loadLeafCalls, type LoadedLeafCalls, type LeafScope } from './leaves';
export { materializeFanouts, cacheCovers, coverage, startFanoutMaterializer } from './cache';
export type { FanoutScope } from './sql';
