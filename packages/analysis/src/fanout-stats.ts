import { fanoutPickHash, pickIndex } from './hash';
import { quantileInclusive, quantileSummary, sortAscending } from './quantile';
import type { LeafCalls, Quantiles } from './types';

/**
 * Per-fan-out finishing times (DESIGN.md "Leaf finishing time": a call's end minus the earliest
 * start among its fan-out's calls, i.e. `startMs + durationMs` in LeafCalls) and the paper's
 * Table 1 built from them.
 */

/** Per fan-out, in ms of finishing time; all arrays have one entry per fan-out. */
export interface FanoutTimes {
  width: Uint32Array;
  /** Finishing time of the picked random leaf. */
  oneLeafMs: Float64Array;
  /** The ceil(0.95 N)-th smallest finishing time: when 95% of the leaves had finished. */
  p95LeavesMs: Float64Array;
  /** The largest finishing time: when all leaves had finished. */
  allLeavesMs: Float64Array;
}

/**
 * 1-based rank of the "95% of leaves finished" order statistic, ceil(0.95 N), in integer
 * arithmetic so that 0.95 * 100 does not round to 96. O(1).
 */
export function p95Rank(n: number): number {
  return Math.floor((95 * n + 99) / 100);
}

/**
 * The pick hashes for the "one random leaf" of each fan-out, reproducible by the SQL pushdown:
 * murmurHash3 of `${seed}:${traceId}:${parentSpanId}` (a missing parentSpanIds column counts
 * as empty ids). O(fan-outs).
 */
export function fanoutPickHashes(calls: LeafCalls, seed: number): Uint32Array {
  const f = calls.traceIds.length;
  const out = new Uint32Array(f);
  for (let i = 0; i < f; i++) {
    out[i] = fanoutPickHash(seed, calls.traceIds[i] ?? '', calls.parentSpanIds?.[i] ?? '');
  }
  return out;
}

/**
 * Finishing-time statistics of every fan-out. `pickHashes[f]` chooses fan-out f's random leaf
 * as the (floor(hash * N / 2^32) + 1)-th smallest finishing time, which is a uniform pick among
 * its calls (picking by rank instead of by position makes the answer independent of call
 * order). Times in ms. O(calls log N). A fan-out with no calls gets NaN times.
 */
export function fanoutTimes(calls: LeafCalls, pickHashes: ArrayLike<number>): FanoutTimes {
  const off = calls.fanoutOffsets;
  const f = off.length - 1;
  const width = new Uint32Array(f);
  const oneLeafMs = new Float64Array(f);
  const p95LeavesMs = new Float64Array(f);
  const allLeavesMs = new Float64Array(f);
  const scratch = new Float64Array(maxWidth(off));
  for (let i = 0; i < f; i++) {
    const a = off[i] as number;
    const n = (off[i + 1] as number) - a;
    width[i] = n;
    if (n === 0) {
      oneLeafMs[i] = p95LeavesMs[i] = allLeavesMs[i] = NaN;
      continue;
    }
    const s = scratch.subarray(0, n);
    for (let j = 0; j < n; j++) {
      s[j] = (calls.startMs[a + j] as number) + (calls.durationMs[a + j] as number);
    }
    s.sort();
    oneLeafMs[i] = s[pickIndex(pickHashes[i] ?? 0, n)] as number;
    p95LeavesMs[i] = s[p95Rank(n) - 1] as number;
    allLeavesMs[i] = s[n - 1] as number;
  }
  return { width, oneLeafMs, p95LeavesMs, allLeavesMs };
}

function maxWidth(off: Uint32Array): number {
  let m = 0;
  for (let i = 0; i + 1 < off.length; i++)
    m = Math.max(m, (off[i + 1] as number) - (off[i] as number));
  return m;
}

/** DESIGN.md "Table 1", quantiles across fan-outs, ms. */
export interface Table1 {
  oneLeaf: Quantiles;
  p95Leaves: Quantiles;
  allLeaves: Quantiles;
  /**
   * (allLeaves.p99 - p95Leaves.p99) / allLeaves.p99: the share of the all-leaves p99 spent
   * waiting for the slowest 5% of the leaves. 0 when allLeaves.p99 is 0.
   */
  slowest5pctShareOfP99: number;
}

/**
 * Table 1 from per-fan-out times: type-7 p50/p95/p99/p99.9 across fan-outs of each column.
 * O(F log F). With no fan-outs every quantile (and the share) is NaN.
 */
export function table1(times: FanoutTimes): Table1 {
  const oneLeaf = quantileSummary(sortAscending(times.oneLeafMs));
  const p95Leaves = quantileSummary(sortAscending(times.p95LeavesMs));
  const allLeaves = quantileSummary(sortAscending(times.allLeavesMs));
  return {
    oneLeaf,
    p95Leaves,
    allLeaves,
    slowest5pctShareOfP99: slowestShare(allLeaves.p99, p95Leaves.p99),
  };
}

/** (all - p95) / all for the two p99s, 0 when all is 0, NaN when either is NaN. O(1). */
export function slowestShare(allP99: number, p95P99: number): number {
  if (Number.isNaN(allP99) || Number.isNaN(p95P99)) return NaN;
  return allP99 === 0 ? 0 : (allP99 - p95P99) / allP99;
}

/** Width statistics across fan-outs: type-7 median and maximum. O(F log F); empty: NaN and 0. */
export function widthStats(width: ArrayLike<number>): { p50: number; max: number } {
  const sorted = sortAscending(width);
  return {
    p50: quantileInclusive(sorted, 0.5),
    max: sorted.length ? (sorted[sorted.length - 1] as number) : 0,
  };
}

/**
 * The all-leaves time of every fan-out and the call that set it (its straggler: the latest
 * finishing call, the first in call order on ties), without sorting. O(calls).
 */
export function fanoutMaxima(calls: LeafCalls): {
  allLeavesMs: Float64Array;
  straggler: Uint32Array;
} {
  const off = calls.fanoutOffsets;
  const f = off.length - 1;
  const allLeavesMs = new Float64Array(f);
  const straggler = new Uint32Array(f);
  for (let i = 0; i < f; i++) {
    let best = -Infinity;
    let at = off[i] as number;
    for (let j = off[i] as number; j < (off[i + 1] as number); j++) {
      const t = (calls.startMs[j] as number) + (calls.durationMs[j] as number);
      if (t > best) {
        best = t;
        at = j;
      }
    }
    allLeavesMs[i] = best === -Infinity ? NaN : best;
    straggler[i] = at;
  }
  return { allLeavesMs, straggler };
}
