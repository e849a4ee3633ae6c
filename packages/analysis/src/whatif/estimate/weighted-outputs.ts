/**
 * A what-if answer's percentiles when each output carries a weight (sampled traces).
 */

import type { SeededRandom } from '../../random';
import { bootstrapWeightedQuantiles, type Estimate } from './bootstrap';
import { effectiveSize, sortWeighted, weightedQuantile } from '../../weighted-quantile';

/** The baseline and what-if percentiles of a what-if answer (simulate.ts WhatIfResult's). */
export interface WeightedOutputs {
  baseline: { p50: number; p90: number; p99: number; p999: number };
  whatIf: { p50: Estimate; p90: Estimate; p99: Estimate; p999: Estimate };
}

/**
 * Weighted baseline and what-if percentiles (sampled data): `base` one value per request with
 * `weights`, `replayed` R replays of them one after the other (entry k weighs weights[k mod n]).
 * Weighted type-7 quantiles, and bootstrapWeightedQuantiles resampling Kish's effective number
 * of requests. O((n R) log(n R) + B log(n R)).
 */
export function weightedWhatIf(
  base: Float64Array,
  replayed: Float64Array,
  weights: Float64Array,
  rng: SeededRandom,
  samples: number,
): WeightedOutputs {
  const n = base.length;
  const sortedBase = sortWeighted(base, (i) => weights[i] as number);
  const pooled = sortWeighted(replayed, (k) => weights[k % n] as number);
  const [p50, p90, p99, p999] = bootstrapWeightedQuantiles(
    pooled,
    [0.5, 0.9, 0.99, 0.999],
    rng,
    samples,
    effectiveSize(weights),
  );
  const nan = { value: NaN, low: NaN, high: NaN };
  return {
    baseline: {
      p50: weightedQuantile(sortedBase, 0.5),
      p90: weightedQuantile(sortedBase, 0.9),
      p99: weightedQuantile(sortedBase, 0.99),
      p999: weightedQuantile(sortedBase, 0.999),
    },
    whatIf: { p50: p50 ?? nan, p90: p90 ?? nan, p99: p99 ?? nan, p999: p999 ?? nan },
  };
}
