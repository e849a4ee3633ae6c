/**
 * Reorders `a` in place so that every position inside the given ranges holds the value a sort
 * would put there (ascending, as Float64Array's sort; -0 and +0 count as equal, NaN is kept out
 * by the callers). `ranges`: [lo, hi] inclusive position pairs, ascending and disjoint. Positions
 * outside the ranges hold the other values in no particular order.
 *
 * Why: a bootstrap over 100,000 replayed requests reads a few hundred order statistics around
 * four percentiles, and sorting all of them was the largest single cost of a slider preview
 * after the draws (issue #14). Per range: a quickselect of its first position in what is left
 * right of the previous range, one of its last position right of that, and a sort of the few
 * values between. Expected O(n + total range length x log), a sort's O(n log n) at worst
 * (introselect: a partition loop that does not shrink fast enough sorts its part instead).
 */

export function selectRanges(
  a: Float64Array,
  ranges: readonly (readonly [number, number])[],
): void {
  const n = a.length;
  let from = 0;
  for (const [lo, hi] of ranges) {
    if (!(Number.isInteger(lo) && Number.isInteger(hi) && from <= lo && lo <= hi && hi < n))
      throw new RangeError(`range [${lo}, ${hi}] not ascending inside 0..${n - 1}`);
    selectAt(a, from, n - 1, lo);
    if (hi > lo) {
      selectAt(a, lo + 1, n - 1, hi);
      a.subarray(lo + 1, hi).sort();
    }
    from = hi + 1;
  }
}

/**
 * Places at position k the value a sort of a[left..right] would put there, with everything in
 * [left, k) <= it and everything in (k, right] >= it: Hoare quickselect, median-of-three pivot.
 */
function selectAt(a: Float64Array, left: number, right: number, k: number): void {
  let lo = left;
  let hi = right;
  // Each round should about halve the part; past this many rounds sort it instead.
  let budget = 2 * Math.ceil(Math.log2(right - left + 2)) + 8;
  while (hi > lo) {
    if (budget-- === 0) {
      a.subarray(lo, hi + 1).sort();
      return;
    }
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < a[lo]!) swap(a, mid, lo);
    if (a[hi]! < a[lo]!) swap(a, hi, lo);
    if (a[hi]! < a[mid]!) swap(a, hi, mid);
    const pivot = a[mid]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        swap(a, i, j);
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

function swap(a: Float64Array, i: number, j: number): void {
  const t = a[i]!;
  a[i] = a[j]!;
  a[j] = t;
}

/**
 * The ascending, disjoint ranges covering the given positions, each position interval [lo, hi]
 * inclusive, merged where they overlap or touch. O(k log k) for k intervals.
 */
export function mergeRanges(intervals: (readonly [number, number])[]): [number, number][] {
  const sorted = [...intervals].sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

const DIGITS = 65_536;
/** Which 32-bit word of a float64 holds the sign and exponent on this machine (radix-sort.ts). */
const HI = new Uint32Array(new Float64Array([-0]).buffer)[1] === 0x80000000 ? 1 : 0;

/**
 * A length-n array (`out`, reused when long enough) whose positions inside `ranges` (as for
 * selectRanges) hold the values a sort of `values` would put there; other positions hold
 * anything. `values` is not modified.
 *
 * Why not a quickselect over a copy: on 100,000 values its branchy partitions cost more than the
 * radix sort they replace. Instead one pass counts values by the top 16 bits of their order key
 * (sign, exponent, 4 mantissa bits: sixteenths of an octave), a second copies only the values
 * of the digits holding a needed position (a few per cent of them for latencies), and
 * selectRanges orders that small slice; its positions are the global ones minus the values of
 * the digits left out below. O(n) plus the slice's selection.
 */
export function sortedAtRanges(
  values: Float64Array,
  ranges: readonly (readonly [number, number])[],
  out?: Float64Array,
): Float64Array {
  const n = values.length;
  const a = out && out.length >= n ? out.subarray(0, n) : new Float64Array(n);
  const words = new Uint32Array(values.buffer, values.byteOffset, 2 * n);
  const count = new Uint32Array(DIGITS);
  for (let i = 0; i < n; i++) count[digit(words[2 * i + HI]!)]!++;
  // Every digit holding a position of a range is needed; none left out lies inside a range, so
  // a range's positions sit in the slice shifted by one count: the values left out below it.
  const need = new Uint8Array(DIGITS);
  const shift = new Float64Array(ranges.length);
  let r = 0; // first range not wholly below the digit
  let s = 0; // first range whose shift is not known yet
  let before = 0; // values in digits below d
  let skipped = 0; // of those, left out of the slice
  for (let d = 0; d < DIGITS; d++) {
    const c = count[d]!;
    if (c === 0) continue;
    const end = before + c;
    while (r < ranges.length && ranges[r]![1] < before) r++;
    if (r < ranges.length && ranges[r]![0] < end) {
      need[d] = 1;
      for (; s < ranges.length && ranges[s]![0] < end; s++) shift[s] = skipped;
    } else skipped += c;
    before = end;
  }
  const slice = new Float64Array(n - skipped);
  let m = 0;
  for (let i = 0; i < n; i++) if (need[digit(words[2 * i + HI]!)] === 1) slice[m++] = values[i]!;
  selectRanges(
    slice,
    ranges.map(([lo, hi], k) => [lo - shift[k]!, hi - shift[k]!] as const),
  );
  ranges.forEach(([lo, hi], k) => {
    for (let p = lo; p <= hi; p++) a[p] = slice[p - shift[k]!]!;
  });
  return a;
}

/** The top 16 bits of a float64's order key (sign flipped for positives, all bits for negatives). */
function digit(h: number): number {
  return ((h ^ ((h >> 31) | 0x80000000)) >>> 16) & 0xffff;
}
