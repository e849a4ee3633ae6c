/* eslint-disable @typescript-eslint/no-non-null-assertion -- typed-array loops: every index is in
   bounds by construction (offsets, pools), and a `?? 0` would hide an indexing bug as a zero. */
import type { SeededRandom } from './random';
import { nearestRank, quantileSorted } from './select';

/** A percentile with its 95% bootstrap interval, ms. */
export interface Estimate {
  value: number;
  low: number;
  high: number;
}

/** Default number of bootstrap replicates. */
export const DEFAULT_BOOTSTRAP_SAMPLES = 2000;

/**
 * Nearest-rank quantiles `qs` (ascending, each in (0, 1]) of `values` with percentile 95%
 * bootstrap intervals over B resamples of the values with replacement.
 *
 * Why it is fast and still the plain bootstrap: resampling n values with replacement draws n
 * uniform U_j and takes sorted[floor(U_j n)]; floor is monotone, so the k-th smallest resampled
 * value is sorted[floor(U_(k) n)], U_(k) the k-th order statistic of n uniforms, which is
 * Beta(k, n - k + 1). Later ranks follow from earlier ones (U_(k2) = U_(k1) + (1 - U_(k1)) *
 * Beta(k2 - k1, n - k2 + 1)), so each replicate costs a few Beta draws instead of n draws and
 * a selection. Same distribution as resampling indexes, O(n log n + B |qs|) in total.
 *
 * Sorts a copy of `values`. Empty input gives NaN everywhere. Replicates share one stream of
 * `rng`, so the answer depends on the order of `qs` (keep it ascending and fixed).
 */
export function bootstrapQuantiles(
  values: Float64Array,
  qs: readonly number[],
  rng: SeededRandom,
  samples = DEFAULT_BOOTSTRAP_SAMPLES,
): Estimate[] {
  const n = values.length;
  if (n === 0) return qs.map(() => ({ value: Number.NaN, low: Number.NaN, high: Number.NaN }));
  const sorted = Float64Array.from(values).sort();
  const ranks = qs.map((q) => nearestRank(q, n));
  const reps = qs.map(() => new Float64Array(samples));
  for (let b = 0; b < samples; b++) {
    let u = 0; // U_(prevRank)
    let prev = 0;
    for (let r = 0; r < ranks.length; r++) {
      const k = ranks[r]!;
      if (k > prev) {
        u = u + (1 - u) * rng.beta(k - prev, n - k + 1);
        prev = k;
      }
      reps[r]![b] = sorted[Math.min(n - 1, Math.floor(u * n))]!;
    }
  }
  return qs.map((q, r) => {
    const rep = reps[r]!.sort();
    return {
      value: quantileSorted(sorted, q),
      low: quantileSorted(rep, 0.025),
      high: quantileSorted(rep, 0.975),
    };
  });
}

/** The four percentiles the what-if answer reports, each with its interval. */
export function bootstrapPercentiles(
  values: Float64Array,
  rng: SeededRandom,
  samples = DEFAULT_BOOTSTRAP_SAMPLES,
): { p50: Estimate; p90: Estimate; p99: Estimate; p999: Estimate } {
  const [p50, p90, p99, p999] = bootstrapQuantiles(values, [0.5, 0.9, 0.99, 0.999], rng, samples);
  return { p50: p50!, p90: p90!, p99: p99!, p999: p999! };
}
