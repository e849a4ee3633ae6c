/**
 * Per-host latency histograms over a sliding window of evaluation intervals, for probation.
 * Log-linear bins (16 per power of two, from 2^-7 ms to 2^25 ms) read straight from the float's
 * exponent and top mantissa bits, so a quantile is within ±3.1% of the exact order statistic
 * (a bin's midpoint is at most 1/32 of its lower edge away from any value in it).
 * Memory: hosts x 512 counters plus 4 bytes per recorded call.
 */

const SUB_BITS = 4;
const MIN_EXP = -7;
const OCTAVES = 32; // 2^-7 ms to 2^25 ms (9 hours): every real latency lands in range
const HOST_SHIFT = 9; // log2(HISTOGRAM_BINS), to get the host back from an entry
export const HISTOGRAM_BINS = OCTAVES << SUB_BITS;

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
// Index of the 32-bit word that holds the sign, exponent and top mantissa bits.
const HIGH_WORD = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;
const BIN_BIAS = (1023 + MIN_EXP) << SUB_BITS;

/** Bin of a latency in ms (values outside the range land in the first or last bin). */
export function binOf(ms: number): number {
  if (!(ms > 0)) return 0;
  f64[0] = ms;
  const b = (u32[HIGH_WORD]! >>> (20 - SUB_BITS)) - BIN_BIAS;
  return b < 0 ? 0 : b >= HISTOGRAM_BINS ? HISTOGRAM_BINS - 1 : b;
}

/** Representative value (midpoint) of a bin, ms. */
export function binValue(b: number): number {
  const e = (b >>> SUB_BITS) + MIN_EXP;
  const s = b & ((1 << SUB_BITS) - 1);
  return Math.pow(2, e) * (1 + (s + 0.5) / (1 << SUB_BITS));
}

export class HostWindowStats {
  private readonly hist: Uint32Array;
  readonly count: Uint32Array;
  /** Recorded (host << 9 | bin) entries in interval order, so old intervals can be removed. */
  private readonly entries: Uint32Array;
  private written = 0;
  private expired = 0;
  /** Pairs (interval, end position in entries) for intervals not yet expired. */
  private readonly marks: number[] = [];

  constructor(
    readonly hosts: number,
    maxEntries: number,
  ) {
    this.hist = new Uint32Array(hosts * HISTOGRAM_BINS);
    this.count = new Uint32Array(hosts);
    this.entries = new Uint32Array(maxEntries);
  }

  /** Records one latency of host h in the current interval. O(1). */
  add(h: number, ms: number): void {
    const e = (h << HOST_SHIFT) + binOf(ms);
    this.hist[e]!++;
    this.count[h]!++;
    this.entries[this.written++] = e;
  }

  /** Closes interval k: what was added since the previous close belongs to it. */
  close(k: number): void {
    this.marks.push(k, this.written);
  }

  /** Removes every closed interval <= k. O(entries removed). */
  expireThrough(k: number): void {
    while (this.marks.length > 0 && this.marks[0]! <= k) {
      const end = this.marks[1]!;
      for (let p = this.expired; p < end; p++) {
        const e = this.entries[p]!;
        this.hist[e]!--;
        this.count[e >>> HOST_SHIFT]!--;
      }
      this.expired = end;
      this.marks.splice(0, 2);
    }
  }

  /** Nearest-rank quantile q (0..1] of host h's window, ms; NaN when empty. O(bins). */
  quantile(h: number, q: number): number {
    const n = this.count[h]!;
    if (n === 0) return Number.NaN;
    const rank = Math.min(n, Math.max(1, Math.ceil(q * n - 1e-9)));
    let seen = 0;
    const base = h << HOST_SHIFT;
    for (let b = 0; b < HISTOGRAM_BINS; b++) {
      seen += this.hist[base + b]!;
      if (seen >= rank) return binValue(b);
    }
    return binValue(HISTOGRAM_BINS - 1);
  }
}
