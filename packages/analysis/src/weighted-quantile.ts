/**
 * Weighted quantiles for sampled data (docs/analysis.md "Sampling"): each value stands for
 * `weight` values of the population (its sampling adjusted count, >= 1 in practice). The
 * definition is the package's type 7 (quantile.ts) over the population the weights describe:
 * with W = sum of weights and the values sorted, position t in 1..W holds the value whose
 * cumulative weight first reaches t, and
 *
 *   h = q * (W - 1) + 1;  k = floor(h);  Q(q) = x@k + (h - k) * (x@(k+1) - x@k)
 *
 * So integer weights give exactly the type-7 quantile of the sample with every value repeated
 * `weight` times, and all weights 1 give quantileInclusive itself (tested with fast-check).
 * Callers skip this path when every weight is 1 (allOnes), so unweighted answers stay
 * bit-identical and as fast as before.
 */

import { quantileInclusive } from './quantile';

/** Values sorted ascending with their weights, and the running sums of the weights. */
export interface WeightedSorted {
  values: Float64Array;
  /** cumulative[i] = weights of values[0..i]; the last entry is W. */
  cumulative: Float64Array;
}

/** True when `weights` is absent or every entry is exactly 1 (nothing to weight). O(n). */
export function allOnes(weights: ArrayLike<number> | undefined): boolean {
  if (weights === undefined) return true;
  for (let i = 0; i < weights.length; i++) if (weights[i] !== 1) return false;
  return true;
}

/**
 * Sorts `values` ascending carrying `weight(i)` along. Values with the same weight are sorted
 * together with the typed-array sort and the groups merged (a sampler writes few distinct
 * thresholds, so there are few groups); past 32 distinct weights an index sort. Equal values
 * keep no particular order, which a quantile cannot see. O(n log n).
 */
export function sortWeighted(
  values: ArrayLike<number>,
  weight: (i: number) => number,
): WeightedSorted {
  const n = values.length;
  const groups = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const w = weight(i);
    let g = groups.get(w);
    if (!g) {
      if (groups.size >= 32) return indexSorted(values, weight);
      groups.set(w, (g = []));
    }
    g.push(values[i] as number);
  }
  const runs = [...groups].map(([w, xs]) => ({ w, xs: Float64Array.from(xs).sort(), at: 0 }));
  const out = new Float64Array(n);
  const cumulative = new Float64Array(n);
  let total = 0;
  for (let k = 0; k < n; k++) {
    let best = -1;
    for (let r = 0; r < runs.length; r++) {
      const run = runs[r];
      if (!run || run.at >= run.xs.length) continue;
      const b = best < 0 ? undefined : runs[best];
      if (!b || (run.xs[run.at] as number) < (b.xs[b.at] as number)) best = r;
    }
    const run = runs[best];
    if (!run) break;
    out[k] = run.xs[run.at++] as number;
    total += run.w;
    cumulative[k] = total;
  }
  return { values: out, cumulative };
}

function indexSorted(values: ArrayLike<number>, weight: (i: number) => number): WeightedSorted {
  const n = values.length;
  const order = Uint32Array.from({ length: n }, (_, i) => i).sort(
    (a, b) => (values[a] as number) - (values[b] as number),
  );
  const out = new Float64Array(n);
  const cumulative = new Float64Array(n);
  let total = 0;
  order.forEach((i, k) => {
    out[k] = values[i] as number;
    total += weight(i);
    cumulative[k] = total;
  });
  return { values: out, cumulative };
}

/** Total weight W. */
export function totalWeight(s: WeightedSorted): number {
  return s.cumulative.length === 0 ? 0 : (s.cumulative[s.cumulative.length - 1] as number);
}

/**
 * The value at weighted position t (1-based): the first value whose cumulative weight reaches
 * t; the first value for t <= its weight, the last past W. Binary search, O(log n).
 */
export function valueAtPosition(s: WeightedSorted, t: number): number {
  const c = s.cumulative;
  let lo = 0;
  let hi = c.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((c[mid] as number) >= t) hi = mid;
    else lo = mid + 1;
  }
  return s.values[lo] as number;
}

/**
 * Weighted type-7 quantile (see the module comment). Empty input gives NaN; a total weight
 * at most 1 gives the first value's interpolation edge like type 7 with one value. O(log n).
 */
export function weightedQuantile(s: WeightedSorted, q: number): number {
  const n = s.values.length;
  if (n === 0) return NaN;
  const w = totalWeight(s);
  const h = q * (w - 1) + 1;
  const k = Math.floor(h);
  if (k >= w) return s.values[n - 1] as number;
  if (k < 1) return s.values[0] as number;
  const a = valueAtPosition(s, k);
  const b = valueAtPosition(s, k + 1);
  return a + (h - k) * (b - a);
}

/**
 * Type-7 quantile of `values`, weighted by `weights` unless every weight is 1 (then exactly
 * quantileInclusive of a sorted copy). `weights` has the values' length. O(n log n).
 */
export function quantileMaybeWeighted(
  values: ArrayLike<number>,
  weights: ArrayLike<number> | undefined,
  q: number,
): number {
  if (allOnes(weights) || weights === undefined)
    return quantileInclusive(Float64Array.from(values).sort(), q);
  return weightedQuantile(
    sortWeighted(values, (i) => weights[i] as number),
    q,
  );
}

/**
 * Kish's effective sample size (sum w)^2 / sum w^2 of n weighted values: n when the weights
 * are equal, fewer the more they differ. A bootstrap of weighted data resamples this many.
 */
export function effectiveSize(weights: ArrayLike<number>, n = weights.length): number {
  let s = 0;
  let s2 = 0;
  for (let i = 0; i < n; i++) {
    const w = weights[i] as number;
    s += w;
    s2 += w * w;
  }
  return s2 === 0 ? 0 : (s * s) / s2;
}
