import type { RequestTrees, SplitScratch } from '@tailscope/analysis';

/**
 * Shared memory reused answer after answer by RequestReplayThreads (its executor's
 * SplitScratch). Why: a million-request hedge answer allocated ~330 MB of arrays on the calling
 * thread (the merged target calls, the outputs, the copies the threads sort), and V8 answers
 * that much new external memory with full collections: 3-5 per answer, ~100-200 ms of the
 * calling thread's time (--trace-gc, issue #14). An answer asks for its arrays in the same order every time, so the k-th array it
 * asks for gets the k-th buffer of the previous answer when that is big enough.
 *
 * The arrays are NOT zeroed: a caller writes every value of what it takes before reading it.
 */
export interface ScratchAlloc extends SplitScratch {
  /** A copy of `a` in scratch memory. */
  readonly copy: (a: Float64Array) => Float64Array;
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
    const copy = (a: Float64Array): Float64Array => {
      const b = f64(a.length);
      b.set(a);
      return b;
    };
    return {
      f64,
      u32: (n) => new Uint32Array(buffer(4 * n), 0, n),
      copy,
      share: (a) => (a.buffer instanceof SharedArrayBuffer ? a : copy(a)),
      done: (keep) => {
        if (!reuse) return;
        this.busy = false;
        // Buffers past what this answer used are kept too: a later, bigger answer may use them.
        this.kept = keep ? [...used, ...this.kept.slice(used.length)] : [];
      },
    };
  }
}

/** The trees' columns on shared memory (trace ids left out: the replay never reads them). */
export function shareTrees(t: RequestTrees): RequestTrees {
  const share = <A extends Float64Array | Int32Array | Uint32Array | Uint8Array>(
    a: A,
    make: (b: SharedArrayBuffer, n: number) => A,
  ): A => {
    const out = make(new SharedArrayBuffer(Math.max(8, a.byteLength)), a.length);
    out.set(a);
    return out;
  };
  return {
    nodeOffsets: share(t.nodeOffsets, (b, n) => new Uint32Array(b, 0, n)),
    requestStartMs: share(t.requestStartMs, (b, n) => new Float64Array(b, 0, n)),
    traceIds: [],
    parent: share(t.parent, (b, n) => new Int32Array(b, 0, n)),
    startMs: share(t.startMs, (b, n) => new Float64Array(b, 0, n)),
    durationMs: share(t.durationMs, (b, n) => new Float64Array(b, 0, n)),
    edge: share(t.edge, (b, n) => new Int32Array(b, 0, n)),
    host: share(t.host, (b, n) => new Uint32Array(b, 0, n)),
    mode: share(t.mode, (b, n) => new Uint32Array(b, 0, n)),
    structure: share(t.structure, (b, n) => new Uint8Array(b, 0, n)),
    concurrency: share(t.concurrency, (b, n) => new Uint32Array(b, 0, n)),
    edges: t.edges,
    hosts: t.hosts,
    modes: t.modes,
    ...(t.shape ? { shape: share(t.shape, (b, n) => new Int32Array(b, 0, n)) } : {}),
  };
}
