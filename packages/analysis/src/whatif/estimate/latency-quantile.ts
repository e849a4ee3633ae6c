/**
 * The exact type-7 latency quantile a policy's threshold comes from, by binning instead of a
 * full copy and sort.
 */

import { quantileInclusive, selectKth } from '../../quantile';
import { sortedCopy } from './radix-sort';
import { binOf, HISTOGRAM_BINS } from './host-window-stats';

/**
 * The package's type-7 quantile (quantile.ts) of latencies, exactly, without copying them all:
 * one pass counts values per log-linear bin, a second copies only the bins holding the two
 * order statistics the quantile interpolates, and a selection finishes on that small slice.
 * Bins are ordered, so the slice's ranks are the global ranks minus the count below it.
 * O(n) with two cheap passes (vs a quickselect over a full copy); NaN when empty. Values must
 * not be NaN.
 */
export function latencyQuantile(values: Float64Array, q: number): number {
  const n = values.length;
  if (n === 0) return Number.NaN;
  const h = q * (n - 1) + 1;
  const k = Math.min(n, Math.max(1, Math.floor(h)));
  const frac = Math.floor(h) >= n || h < 1 ? 0 : h - k;
  const k2 = Math.min(n, k + 1);
  const counts = new Float64Array(HISTOGRAM_BINS);
  for (let i = 0; i < n; i++) counts[binOf(values[i]!)]!++;
  let below = 0; // values in bins before `lo`
  let lo = 0;
  while (below + counts[lo]! < k) below += counts[lo++]!;
  let hi = lo;
  let upTo = below + counts[lo]!;
  while (upTo < k2) upTo += counts[++hi]!;
  const slice = new Float64Array(upTo - below);
  let m = 0;
  for (let i = 0; i < n; i++) {
    const b = binOf(values[i]!);
    if (b >= lo && b <= hi) slice[m++] = values[i]!;
  }
  const a = selectKth(slice, k - below);
  if (frac === 0) return a;
  let next = Number.POSITIVE_INFINITY; // the (k+1)-th: the smallest right of the k-th
  for (let i = k - below; i < slice.length; i++) if (slice[i]! < next) next = slice[i]!;
  return a + frac * (next - a);
}

/**
 * A sorted copy per latency column: a delay slider asks the same calls' quantile at every
 * position (the hedge's delayPercentile), and the two passes over 400,000 calls were ~5% of a
 * preview (issue #14). Made at the first ask (a radix sort, ~3x latencyQuantile's passes), not
 * the second: the first ask comes with a cold answer (reading and building: seconds), the
 * second with the first slider update, where it was ~15 ms of ~100. Checked by the sum on every
 * use (O(n) adds), so a column rewritten in place is sorted again, not answered from the copy.
 */
const kept = new WeakMap<Float64Array, { sum: number; sorted: Float64Array }>();

/** latencyQuantile, the same double, from the column's kept sorted copy (see `kept`). */
export function latencyQuantileKept(values: Float64Array, q: number): number {
  if (values.length === 0) return Number.NaN;
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i]!;
  let k = kept.get(values);
  if (k?.sorted.length !== values.length || !Object.is(k.sum, sum)) {
    k = { sum, sorted: sortedCopy(values) };
    kept.set(values, k);
  }
  return quantileInclusive(k.sorted, q);
}
