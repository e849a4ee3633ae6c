/**
 * How much a quantile moves between two halves of the same data: the replay's noise floor.
 */

import { latencyQuantile } from './latency-quantile';
import { SeededRandom } from '../../random';

export interface NoiseFloorOptions {
  /** Random splits. Default 400. */
  splits?: number;
  /** Share of splits inside the returned distance. Default 0.95. */
  coverage?: number;
  /** Seeds the splits. Default 3. */
  seed?: number;
}

/**
 * How far apart the q-quantiles of two groups of this size drawn like `samples` fall, as a
 * relative distance: in `coverage` of the splits of `samples` into two random halves, the
 * halves' quantiles lie within it once scaled to full-size groups (x 1/sqrt 2 in log terms, a
 * quantile's variance going as 1/n). It is the error a perfect prediction would still show
 * against a real group of the same size, the yardstick for a predicted-vs-real comparison.
 * Random halves keep what a bootstrap over independent requests misses when slowness comes in
 * bursts: a burst's requests are split between the halves at random, as between two groups
 * that share a run. NaN below 200 samples. Seeded; O(splits x n).
 */
export function quantileNoiseFloor(
  samples: Float64Array,
  q: number,
  opts: NoiseFloorOptions = {},
): number {
  const a = Float64Array.from(samples);
  const half = a.length >> 1;
  if (half < 100) return Number.NaN;
  const splits = opts.splits ?? 400;
  const rng = new SeededRandom(opts.seed ?? 3);
  const logs = new Float64Array(splits);
  for (let k = 0; k < splits; k++) {
    // A partial Fisher-Yates shuffle: the first half becomes a uniformly random half.
    for (let i = 0; i < half; i++) {
      const j = i + Math.floor(rng.float() * (a.length - i));
      const t = a[i] ?? 0;
      a[i] = a[j] ?? 0;
      a[j] = t;
    }
    const x = latencyQuantile(a.subarray(0, half), q);
    const y = latencyQuantile(a.subarray(half), q);
    logs[k] = Math.abs(Math.log(x / y)) / Math.SQRT2;
  }
  return Math.expm1(latencyQuantile(logs, opts.coverage ?? 0.95));
}
