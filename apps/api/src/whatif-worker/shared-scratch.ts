/**
 * Shared memory reused answer after answer by RequestReplayThreads. Why: a million-request
 * hedge answer allocated ~330 MB of arrays on the calling thread (the merged target calls, the
 * outputs, the copies the threads sort), and V8 answers that much new external memory with
 * full collections: 3-5 per answer, ~100-200 ms of the calling thread's time (--trace-gc,
 * issue #14). An answer asks for its arrays in the same order every time, so the k-th array it
 * asks for gets the k-th buffer of the previous answer when that is big enough.
 *
 * The arrays are NOT zeroed: a caller writes every value of what it takes before reading it.
 */
export interface ScratchAlloc {
  readonly f64: (n: number) => Float64Array;
  readonly u32: (n: number) => Uint32Array;
  /** A copy of `a` in scratch memory. */
  readonly copy: (a: Float64Array) => Float64Array;
  /**
   * Ends the answer: `reuse` gives its buffers to the next one (not after a failure, when a
   * thread may still be writing into them).
   */
  readonly done: (reuse: boolean) => void;
}

export class SharedScratch {
  private kept: SharedArrayBuffer[] = [];
  private busy = false;

  /** An allocator for one answer. Answers at once: the second gets fresh memory. */
  take(): ScratchAlloc {
    const reuse = !this.busy;
    this.busy = true;
    const kept = reuse ? this.kept : [];
    const used: SharedArrayBuffer[] = [];
    const buffer = (bytes: number): SharedArrayBuffer => {
      const old = kept[used.length];
      const b =
        old !== undefined && old.byteLength >= bytes
          ? old
          : new SharedArrayBuffer(Math.max(8, bytes));
      used.push(b);
      return b;
    };
    const f64 = (n: number): Float64Array => new Float64Array(buffer(8 * n), 0, n);
    return {
      f64,
      u32: (n) => new Uint32Array(buffer(4 * n), 0, n),
      copy: (a) => {
        const b = f64(a.length);
        b.set(a);
        return b;
      },
      done: (keep) => {
        if (!reuse) return;
        this.busy = false;
        // Buffers past what this answer used are kept too: a later, bigger answer may use them.
        this.kept = keep ? [...used, ...this.kept.slice(used.length)] : [];
      },
    };
  }
}
