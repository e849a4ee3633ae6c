/* eslint-disable @typescript-eslint/no-non-null-assertion -- typed-array loops: every index is in
   bounds by construction (offsets, pools), and a `?? 0` would hide an indexing bug as a zero. */
/**
 * Order statistics on typed arrays. The simulator's percentiles use the nearest-rank
 * definition: the q-quantile of n values is the ceil(q n)-th smallest (1-based), the same
 * order statistic DESIGN.md uses for "the time by which 95% of leaves finished".
 */

/** 1-based nearest rank of quantile q (0..1) among n values, clamped to [1, n]. */
export function nearestRank(q: number, n: number): number {
  return Math.min(n, Math.max(1, Math.ceil(q * n - 1e-9)));
}

/**
 * Rearranges `a[lo..hi]` (inclusive) so that `a[k]` holds the value it would hold if sorted,
 * smaller-or-equal values before it and greater-or-equal after. Expected O(hi - lo) (Hoare
 * partitioning around a median of three, which copes with many equal values). Mutates `a`.
 */
export function selectInPlace(a: Float64Array, k: number, lo = 0, hi = a.length - 1): number {
  let l = lo;
  let r = hi;
  while (r > l) {
    const m = (l + r) >>> 1;
    // Median of three as pivot, which also puts sentinels at both ends.
    if (a[m]! < a[l]!) swap(a, m, l);
    if (a[r]! < a[l]!) swap(a, r, l);
    if (a[r]! < a[m]!) swap(a, r, m);
    const pivot = a[m]!;
    let i = l;
    let j = r;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        swap(a, i, j);
        i++;
        j--;
      }
    }
    if (k <= j) r = j;
    else if (k >= i) l = i;
    else break;
  }
  return a[k]!;
}

function swap(a: Float64Array, i: number, j: number): void {
  const t = a[i]!;
  a[i] = a[j]!;
  a[j] = t;
}

/**
 * Nearest-rank quantile q (0..1) of `values` without modifying it: copies, then selects.
 * O(n) expected time, O(n) memory. NaN when `values` is empty.
 */
export function quantileOf(values: Float64Array, q: number): number {
  if (values.length === 0) return Number.NaN;
  const copy = Float64Array.from(values);
  return selectInPlace(copy, nearestRank(q, copy.length) - 1);
}

/** Nearest-rank quantile q of an ascending-sorted array. NaN when empty. O(1). */
export function quantileSorted(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[nearestRank(q, sorted.length) - 1]!;
}
