/** Which 32-bit word of a float64 holds the sign and exponent on this machine. */
const HI = new Uint32Array(new Float64Array([-0]).buffer)[1] === 0x80000000 ? 1 : 0;
const LO = 1 - HI;
/** Below this the built-in sort is as fast and allocates less. */
const SMALL = 1 << 15;

/**
 * A sorted copy (ascending) of float64 values, the same bits in the same order as
 * `Float64Array.from(values).sort()` (-0 before +0; NaN with the sign bit clear last; callers
 * keep NaN out anyway), in O(n): a least-significant-digit radix sort over the 64-bit patterns
 * turned into unsigned keys (sign bit flipped for positives, all bits for negatives), 16 bits a
 * pass, skipping a pass when every key has the same digit (the high digits of latencies often
 * do). Why: the built-in comparison sort took ~100 ms per million values, a third of a
 * million-request what-if answer's bootstrap.
 */
export function sortedCopy(values: Float64Array): Float64Array {
  const n = values.length;
  if (n < SMALL) return Float64Array.from(values).sort();
  const out = Float64Array.from(values);
  const words = new Uint32Array(out.buffer, out.byteOffset, 2 * n);
  let hi = new Uint32Array(n);
  let lo = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    putKey(hi, lo, i, words[2 * i + HI]!, words[2 * i + LO]!);
  }
  let hi2 = new Uint32Array(n);
  let lo2 = new Uint32Array(n);
  const count = new Uint32Array(65_536);
  for (let pass = 0; pass < 4; pass++) {
    const key = pass < 2 ? lo : hi;
    const shift = (pass % 2) * 16;
    if (!digitOffsets(count, key, shift, n)) continue; // one digit: already in order
    for (let i = 0; i < n; i++) {
      const at = count[(key[i]! >>> shift) & 0xffff]!++;
      hi2[at] = hi[i]!;
      lo2[at] = lo[i]!;
    }
    [hi, hi2] = [hi2, hi];
    [lo, lo2] = [lo2, lo];
  }
  for (let i = 0; i < n; i++) {
    const h = hi[i]!;
    const pos = h >>> 31 === 1;
    words[2 * i + HI] = pos ? (h & 0x7fffffff) >>> 0 : ~h >>> 0;
    words[2 * i + LO] = pos ? lo[i]! : ~lo[i]! >>> 0;
  }
  return out;
}

/**
 * The indexes 0..n-1 ordered by `values` ascending, ties (and -0 against 0) by index: the same
 * order as `order.sort((a, b) => values[a] - values[b] || a - b)` on the identity, in O(n) (a
 * stable least-significant-digit radix sort of the keys of sortedCopy, -0 keyed as 0). Why: that
 * comparison sort of 1 million fan-out starts was ~130 ms of a million-request hedge answer's
 * replay index (issue #14). Values holding NaN (the comparison is then inconsistent) are
 * ordered by that comparison sort itself, so the answer is its answer whatever the values.
 */
export function sortedOrder(values: Float64Array): Uint32Array<ArrayBuffer> {
  const n = values.length;
  let idx = new Uint32Array(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  const byComparison = (): Uint32Array<ArrayBuffer> =>
    idx.sort((a, b) => values[a]! - values[b]! || a - b);
  if (n < SMALL) return byComparison();
  const spread = bucketOrder(values);
  if (spread) return spread;
  const words = new Uint32Array(values.buffer, values.byteOffset, 2 * n);
  let hi = new Uint32Array(n);
  let lo = new Uint32Array(n);
  let nan = false;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (v !== v) nan = true;
    const zero = v === 0; // -0 compares equal to 0: the same key
    putKey(hi, lo, i, zero ? 0 : words[2 * i + HI]!, zero ? 0 : words[2 * i + LO]!);
  }
  if (nan) return byComparison();
  let hi2 = new Uint32Array(n);
  let lo2 = new Uint32Array(n);
  let idx2 = new Uint32Array(n);
  const count = new Uint32Array(65_536);
  for (let pass = 0; pass < 4; pass++) {
    const key = pass < 2 ? lo : hi;
    const shift = (pass % 2) * 16;
    if (!digitOffsets(count, key, shift, n)) continue; // one digit: already in order
    for (let i = 0; i < n; i++) {
      const at = count[(key[i]! >>> shift) & 0xffff]!++;
      hi2[at] = hi[i]!;
      lo2[at] = lo[i]!;
      idx2[at] = idx[i]!;
    }
    [hi, hi2] = [hi2, hi];
    [lo, lo2] = [lo2, lo];
    [idx, idx2] = [idx2, idx];
  }
  return idx;
}

/** Insertion moves per value bucketOrder may make before it gives up (then: the radix sort). */
const BUCKET_MOVES = 8;

/**
 * sortedOrder for values spread evenly over their range (a fan-out's start times): a stable
 * counting sort into n equal-width buckets by value (monotone in the value, so buckets come
 * in order), then an insertion sort inside each (stable; -0 and 0 compare equal), ~1 value
 * each. Two passes instead of the radix sort's three or four (1 million starts: ~15 ms against
 * ~40). Undefined, after at most BUCKET_MOVES x n moves, when the values crowd a few buckets,
 * or hold NaN or infinities.
 */
export function bucketOrder(values: Float64Array): Uint32Array<ArrayBuffer> | undefined {
  const n = values.length;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (v !== v) return undefined;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const span = max - min;
  if (n === 0 || !Number.isFinite(span)) return undefined;
  const scale = span > 0 ? n / span : 0;
  if (!Number.isFinite(scale)) return undefined; // a subnormal span
  const bucket = new Uint32Array(n);
  const start = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) {
    const b = Math.min(n - 1, Math.floor((values[i]! - min) * scale));
    bucket[i] = b;
    start[b + 1]!++;
  }
  for (let b = 0; b < n; b++) start[b + 1]! += start[b]!;
  const order = new Uint32Array(n);
  const sorted = new Float64Array(n); // values[order[p]], read without the indirection
  const next = start.slice(0, n); // each bucket's next free position
  let moves = 0;
  for (let i = 0; i < n; i++) {
    const b = bucket[i]!;
    const first = start[b]!;
    const v = values[i]!;
    let j = next[b]!++;
    while (j > first && sorted[j - 1]! > v) {
      if (++moves > BUCKET_MOVES * n) return undefined;
      sorted[j] = sorted[j - 1]!;
      order[j] = order[j - 1]!;
      j--;
    }
    sorted[j] = v;
    order[j] = i;
  }
  return order;
}

/**
 * One pass's counting of the 16-bit digit of `key` at `shift`, turned into each digit's first
 * slot (shared by sortedCopy and sortedOrder). False when every key has one digit: the pass
 * would leave the order as it is.
 */
function digitOffsets(count: Uint32Array, key: Uint32Array, shift: number, n: number): boolean {
  count.fill(0);
  for (let i = 0; i < n; i++) count[(key[i]! >>> shift) & 0xffff]!++;
  if (count[(key[0]! >>> shift) & 0xffff] === n) return false;
  let sum = 0;
  for (let d = 0; d < 65_536; d++) {
    const c = count[d]!;
    count[d] = sum;
    sum += c;
  }
  return true;
}

/**
 * The sort key of the double with words h (high) and l (low) at i: unsigned, in the doubles'
 * order (negatives flipped whole, positives with the sign bit set). Shared by both sorts.
 */
function putKey(hi: Uint32Array, lo: Uint32Array, i: number, h: number, l: number): void {
  const neg = h >>> 31 === 1;
  hi[i] = neg ? ~h >>> 0 : (h | 0x80000000) >>> 0;
  lo[i] = neg ? ~l >>> 0 : l;
}
