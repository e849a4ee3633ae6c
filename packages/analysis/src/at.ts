/**
 * `a[i]`, or a RangeError naming the index and the length: for indexes in bounds by
 * construction (offsets, CSR lists), where `a[i]!` would let an indexing bug through as
 * undefined and `a[i] ?? 0` as a zero. One comparison per read; the what-if wing's hot loops
 * keep `!` under their documented override instead (eslint.config.js).
 */
export function at<T>(a: ArrayLike<T>, i: number): T {
  const v = a[i];
  if (v === undefined)
    throw new RangeError(`index ${String(i)} out of bounds (length ${String(a.length)})`);
  return v;
}
