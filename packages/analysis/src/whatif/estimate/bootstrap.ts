/**
 * Bootstrap percentiles of the what-if outputs, with their 95% intervals, weighted or not, and
 * the ranks an answer reads of each output (so partial orders can stand in for full sorts).
 */

import type { SeededRandom } from '../../random';
import { quantileInclusive } from '../../quantile';
import { sortedCopy } from './radix-sort';
import { mergeRanges, sortedAtRanges } from './select-ranges';
import {
  totalWeight,
  valueAtPosition,
  weightedQuantile,
  type WeightedSorted,
} from '../../weighted-quantile';

/** A percentile with its 95% bootstrap interval, ms. */
export interface Estimate {
  value: number;
  low: number;
  high: number;
}

/** Default number of bootstrap replicates. */
export const DEFAULT_BOOTSTRAP_SAMPLES = 2000;

/** The order statistics (1-based) a type-7 quantile interpolates between, and the weight. */
function type7(q: number, n: number): { k: number; frac: number } {
  const h = q * (n - 1) + 1;
  const k = Math.floor(h);
  if (k >= n) return { k: n, frac: 0 };
  if (k < 1) return { k: 1, frac: 0 };
  return { k, frac: h - k };
}

/**
 * Quantiles `qs` (each in [0, 1]; the package's type-7 definition, see quantile.ts) of
 * `values` with percentile 95% bootstrap intervals over B resamples of the values with
 * replacement.
 *
 * Why it is fast and still the plain bootstrap: resampling n values with replacement draws n
 * uniform U_j and takes sorted[floor(U_j n)]; floor is monotone, so the k-th smallest resampled
 * value is sorted[floor(U_(k) n)], U_(k) the k-th order statistic of n uniforms, which is
 * Beta(k, n - k + 1). Higher ranks follow from lower ones (U_(k2) = U_(k1) + (1 - U_(k1)) *
 * Beta(k2 - k1, n - k2 + 1)), so a replicate costs a few Beta draws (two ranks per quantile)
 * instead of n draws and a selection. Same distribution as resampling request indexes;
 * O(n log n + B |qs|) in total.
 *
 * `resampleSize` n (default: all the values): each replicate draws n of the values. With the
 * values of R replays of n requests pooled (R x n values), a replicate of n draws is n requests
 * each with one of its replays: the interval then spreads as one replay's answer would over
 * both the requests' sampling and the replay's draws, while the value (the pooled quantile)
 * has the replay noise of R replays. The k-th smallest of n draws among M pooled values is
 * sorted[floor(U_(k) M)], U_(k) still Beta(k, n - k + 1).
 *
 * Sorts a copy of `values`. Empty input gives NaN everywhere. The answer depends on the seed
 * and on the set of quantiles asked for.
 */
export function bootstrapQuantiles(
  values: Float64Array,
  qs: readonly number[],
  rng: SeededRandom,
  samples = DEFAULT_BOOTSTRAP_SAMPLES,
  resampleSize = values.length,
  /** `values` sorted (sortedCopy) when the caller has them already (sorted on another thread). */
  presorted?: Float64Array,
): Estimate[] {
  const m = values.length;
  const n = Math.max(1, Math.min(m, Math.floor(resampleSize)));
  if (m === 0) return qs.map(() => ({ value: Number.NaN, low: Number.NaN, high: Number.NaN }));
  const plan = orderStatPlan(qs, n);
  const us = drawOrderStats(plan, rng, samples, n);
  const sorted = presorted ?? sortedWhereRead(values, us, qs);
  return orderStatEstimates(
    qs,
    plan,
    us,
    samples,
    (u) => sorted[Math.min(m - 1, Math.floor(u * m))]!,
    (q) => quantileInclusive(sorted, q),
  );
}

/** Below this many values a sort costs about what selecting does. */
const SELECT_FROM = 4096;

/**
 * Scratch for sortedWhereRead, kept across answers: a slider's previews select in arrays of the
 * same size one after another, and fresh 100,000-value copies were a steady share of their
 * garbage. Grown, never shrunk (at most the largest answer's values).
 */
let scratch = new Float64Array(0);

/**
 * `values` ordered as a sort would order them at every position the bootstrap reads (the
 * replicates' order statistics, floor(U m), and the type-7 positions of each quantile), by
 * selecting those ranges (select-ranges.ts) instead of sorting everything; a sorted copy when
 * the ranges are most of the values anyway. Only the positions read are meaningful; the
 * result is scratch memory, valid until the next call.
 */
function sortedWhereRead(
  values: Float64Array,
  us: Float64Array[],
  qs: readonly number[],
): Float64Array {
  const ranges = readRanges(values.length, us, qs);
  if (ranges === undefined) return sortedCopy(values);
  const m = values.length;
  if (scratch.length < m) scratch = new Float64Array(m);
  return sortedAtRanges(values, ranges, scratch);
}

/**
 * The positions of m values the bootstrap reads (see sortedWhereRead), merged; undefined when
 * a full sort costs about as much (few values, or ranges covering most of them).
 */
function readRanges(
  m: number,
  us: Float64Array[],
  qs: readonly number[],
): [number, number][] | undefined {
  if (m < SELECT_FROM) return undefined;
  const intervals: [number, number][] = [];
  for (const col of us) {
    let lo = Infinity;
    let hi = -Infinity;
    for (const u of col) {
      const at = Math.min(m - 1, Math.floor(u * m));
      if (at < lo) lo = at;
      if (at > hi) hi = at;
    }
    if (lo <= hi) intervals.push([lo, hi]);
  }
  for (const q of qs) {
    const k = Math.min(m, Math.max(1, Math.floor(q * (m - 1) + 1))); // quantileInclusive's
    intervals.push([k - 1, Math.min(m - 1, k)]);
  }
  const ranges = mergeRanges(intervals);
  let covered = 0;
  for (const [lo, hi] of ranges) covered += hi - lo + 1;
  return covered > m / 4 ? undefined : ranges;
}

/**
 * Type-7 quantiles (quantileInclusive) of unsorted values, ordering only the two positions each
 * reads (sortedWhereRead): the same values as from a sorted copy, at a fraction of a sort's cost
 * for large arrays (the baseline of a whole-request answer: 1 million recorded times).
 */
export function selectedQuantiles(values: Float64Array, qs: readonly number[]): number[] {
  if (values.length === 0) return qs.map(() => Number.NaN);
  const sorted = sortedWhereRead(values, [], qs);
  return qs.map((q) => quantileInclusive(sorted, q));
}

/**
 * What bootstrapQuantiles over m values (with these qs, samples and resampleSize) reads of
 * them, drawing from `rng` exactly as it will: call it on a clone of the stream it will get.
 * 'all' when it would sort them all, 'none' when it reads nothing (no values), else the
 * position ranges to order (sortedAtRanges). For a caller that orders the values elsewhere
 * (threads) and passes the result as `presorted`: only the positions read matter, so the
 * answer is the same bits.
 */
export function bootstrapReads(
  m: number,
  qs: readonly number[],
  rng: SeededRandom,
  samples = DEFAULT_BOOTSTRAP_SAMPLES,
  resampleSize = m,
): [number, number][] | 'all' | 'none' {
  if (m === 0) return 'none';
  const n = Math.max(1, Math.min(m, Math.floor(resampleSize)));
  const us = drawOrderStats(orderStatPlan(qs, n), rng, samples, n);
  return readRanges(m, us, qs) ?? 'all';
}

/** The quantiles of bootstrapPercentiles. */
export const PERCENTILE_QS: readonly number[] = [0.5, 0.9, 0.99, 0.999];

/** The four percentiles the what-if answer reports, each with its interval. */
export function bootstrapPercentiles(
  values: Float64Array,
  rng: SeededRandom,
  samples = DEFAULT_BOOTSTRAP_SAMPLES,
  resampleSize = values.length,
  presorted?: Float64Array,
): { p50: Estimate; p90: Estimate; p99: Estimate; p999: Estimate } {
  const [p50, p90, p99, p999] = bootstrapQuantiles(
    values,
    PERCENTILE_QS,
    rng,
    samples,
    resampleSize,
    presorted,
  );
  return { p50: p50!, p90: p90!, p99: p99!, p999: p999! };
}

/**
 * The weighted counterpart of bootstrapQuantiles for sampled data (docs/analysis.md
 * "Sampling"): `sorted` holds the values with their adjusted counts (sortWeighted). The value is
 * the weighted type-7 quantile; a replicate draws `resampleSize` values from the weighted
 * empirical distribution (value i with probability weight_i / W) and takes their type-7
 * quantile. The draws are monotone in their uniforms, so the k-th smallest draw is the value at
 * weighted position U_(k) W with U_(k) ~ Beta(k, n - k + 1), as in bootstrapQuantiles; a rank
 * costs a binary search. Callers pass Kish's effective size of the requests' weights as
 * `resampleSize` (effectiveSize), so unequal weights widen the interval as they should.
 * O(B |qs| log n). Empty input gives NaN everywhere.
 */
export function bootstrapWeightedQuantiles(
  sorted: WeightedSorted,
  qs: readonly number[],
  rng: SeededRandom,
  samples: number,
  resampleSize: number,
): Estimate[] {
  const m = sorted.values.length;
  if (m === 0) return qs.map(() => ({ value: Number.NaN, low: Number.NaN, high: Number.NaN }));
  const n = Math.max(1, Math.round(resampleSize));
  const w = totalWeight(sorted);
  const plan = orderStatPlan(qs, n);
  const us = drawOrderStats(plan, rng, samples, n);
  return orderStatEstimates(
    qs,
    plan,
    us,
    samples,
    (u) => valueAtPosition(sorted, u * w),
    (q) => weightedQuantile(sorted, q),
  );
}

/** The ranks each quantile interpolates between (type-7 over n draws), and all of them in order. */
interface OrderStatPlan {
  picks: { k: number; frac: number }[];
  ranks: number[];
}

function orderStatPlan(qs: readonly number[], n: number): OrderStatPlan {
  const picks = qs.map((q) => type7(q, n));
  const ranks = [...new Set(picks.flatMap(({ k, frac }) => (frac > 0 ? [k, k + 1] : [k])))].sort(
    (a, b) => a - b,
  );
  return { picks, ranks };
}

/**
 * The replicate loop both bootstraps share, first half: per replicate, the needed order
 * statistics of n draws as uniforms U_(k) (Beta steps, bootstrapQuantiles); one column per
 * rank, replicate b at [b]. Drawn before any value is read, in the same order as always (so the
 * reads can be planned: sortedWhereRead).
 */
function drawOrderStats(
  plan: OrderStatPlan,
  rng: SeededRandom,
  samples: number,
  n: number,
): Float64Array[] {
  const us = plan.ranks.map(() => new Float64Array(samples));
  for (let b = 0; b < samples; b++) {
    let u = 0; // U_(previous rank)
    let prev = 0;
    for (let r = 0; r < plan.ranks.length; r++) {
      const k = plan.ranks[r]!;
      u = u + (1 - u) * rng.beta(k - prev, n - k + 1);
      prev = k;
      us[r]![b] = u;
    }
  }
  return us;
}

/**
 * Second half: the uniforms mapped to values by `valueAt`; each quantile's interval is the
 * 2.5-97.5% range of its replicates, its value `value(q)`.
 */
function orderStatEstimates(
  qs: readonly number[],
  plan: OrderStatPlan,
  us: Float64Array[],
  samples: number,
  valueAt: (u: number) => number,
  value: (q: number) => number,
): Estimate[] {
  const slot = new Map(plan.ranks.map((r, i) => [r, i]));
  return qs.map((q, i) => {
    const { k, frac } = plan.picks[i]!;
    const lo = us[slot.get(k)!]!;
    const hi = frac > 0 ? us[slot.get(k + 1)!]! : lo;
    const rep = new Float64Array(samples);
    for (let b = 0; b < samples; b++) {
      const a = valueAt(lo[b]!);
      rep[b] = frac > 0 ? a + frac * (valueAt(hi[b]!) - a) : a;
    }
    rep.sort();
    return {
      value: value(q),
      low: quantileInclusive(rep, 0.025),
      high: quantileInclusive(rep, 0.975),
    };
  });
}
