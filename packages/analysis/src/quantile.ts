import type { Quantiles } from './types';

/**
 * Quantiles, one definition everywhere: Hyndman & Fan type 7 (linear interpolation between
 * order statistics; R's default, Excel's PERCENTILE.INC, numpy's 'linear'), computed with the
 * same floating-point steps as ClickHouse's `quantileExactInclusive`, so the SQL pushdown and
 * this code return the same double for the same data:
 *
 *   h = q * (n - 1) + 1;  k = floor(h);  Q(q) = x(k) + (h - k) * (x(k+1) - x(k))
 *
 * with x(1) <= ... <= x(n) the order statistics (1-based), Q = x(1) when k < 1 and x(n) when
 * k >= n.
 */

/**
 * Type-7 quantile of already-sorted values (ascending, no NaN).
 * Units: those of the input. O(1). Edge cases: empty input gives NaN; q outside [0, 1] is
 * clamped to the extremes by the formula (k < 1 or k >= n).
 */
export function quantileInclusive(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const h = q * (n - 1) + 1;
  const k = Math.floor(h);
  if (k >= n) return sorted[n - 1] as number;
  if (k < 1) return sorted[0] as number;
  const a = sorted[k - 1] as number;
  const b = sorted[k] as number;
  return a + (h - k) * (b - a);
}

/**
 * A sorted copy (ascending) as a Float64Array; the input is not modified.
 * O(n log n). NaN values sort last (typed-array sort order); callers keep them out.
 */
export function sortAscending(values: ArrayLike<number>): Float64Array {
  const out = Float64Array.from(values);
  out.sort();
  return out;
}

/**
 * p50/p95/p99/p99.9 (type 7) of already-sorted values, in their units. O(1).
 * Empty input gives NaN for every level.
 */
export function quantileSummary(sorted: ArrayLike<number>): Quantiles {
  return {
    p50: quantileInclusive(sorted, 0.5),
    p95: quantileInclusive(sorted, 0.95),
    p99: quantileInclusive(sorted, 0.99),
    p999: quantileInclusive(sorted, 0.999),
  };
}

/**
 * Type-7 quantile of unsorted values without sorting them all: two order statistics by
 * quickselect on a scratch copy. Expected O(n); the input is not modified. Empty gives NaN.
 */
export function quantileUnsorted(values: ArrayLike<number>, q: number): number {
  const n = values.length;
  if (n === 0) return NaN;
  const h = q * (n - 1) + 1;
  const k = Math.floor(h);
  const scratch = Float64Array.from(values);
  if (k >= n) return selectKth(scratch, n);
  if (k < 1) return selectKth(scratch, 1);
  const a = selectKth(scratch, k);
  // After selecting the k-th, everything right of it is >= it: the (k+1)-th is their minimum.
  let b = Infinity;
  for (let i = k; i < n; i++) {
    const v = scratch[i] as number;
    if (v < b) b = v;
  }
  return a + (h - k) * (b - a);
}

/**
 * The k-th smallest (1-based order statistic) of `a`, by Hoare quickselect with a
 * median-of-three pivot. Reorders `a` in place so that a[k-1] holds the answer, everything left
 * of it is <= and everything right of it is >=. Expected O(n), worst O(n^2) on adversarial
 * input. Throws RangeError when k is not in 1..n.
 */
export function selectKth(a: Float64Array, k: number): number {
  const n = a.length;
  if (!Number.isInteger(k) || k < 1 || k > n) throw new RangeError(`k=${k} not in 1..${n}`);
  const target = k - 1;
  let lo = 0;
  let hi = n - 1;
  while (hi > lo) {
    const mid = (lo + hi) >>> 1;
    // Median of three into a[mid] as the pivot value.
    if ((a[mid] as number) < (a[lo] as number)) swap(a, mid, lo);
    if ((a[hi] as number) < (a[lo] as number)) swap(a, hi, lo);
    if ((a[hi] as number) < (a[mid] as number)) swap(a, hi, mid);
    const pivot = a[mid] as number;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while ((a[i] as number) < pivot) i++;
      while ((a[j] as number) > pivot) j--;
      if (i <= j) {
        swap(a, i, j);
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  return a[target] as number;
}

function swap(a: Float64Array, i: number, j: number): void {
  const t = a[i] as number;
  a[i] = a[j] as number;
  a[j] = t;
}

/**
 * Number of sorted values <= t (the empirical CDF times n), by binary search. O(log n).
 * Divide by n for F(t). NaN t counts nothing.
 */
export function countAtMost(sorted: ArrayLike<number>, t: number): number {
  let lo = 0;
  let hi = sorted.length;
  if (Number.isNaN(t)) return 0;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as number) <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
