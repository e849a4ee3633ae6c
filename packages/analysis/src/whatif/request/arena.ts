/**
 * Typed arrays carved out of one ArrayBuffer. Why: V8 counts typed-array buffers as external
 * memory and starts a full garbage collection each time that grows by some tens of MB; a
 * million-request replay allocating twenty 40-130 MB columns one by one paid a dozen full
 * collections (a third of its time). One buffer for all of them grows it once.
 */

export class Arena {
  private readonly buf: ArrayBuffer;
  private off = 0;

  /**
   * `bytes`: the sum of arenaBytes(...) of every array to be taken. With `memory`, the buffer of
   * its `slot` is reused when big enough: its contents are then NOT zero.
   */
  constructor(bytes: number, memory?: ArenaMemory, slot = 0) {
    this.buf = memory ? memory.take(slot, bytes) : new ArrayBuffer(bytes);
  }

  f64(n: number): Float64Array {
    return new Float64Array(this.buf, this.take(n * 8), n);
  }
  i32(n: number): Int32Array {
    return new Int32Array(this.buf, this.take(n * 4), n);
  }
  u32(n: number): Uint32Array {
    return new Uint32Array(this.buf, this.take(n * 4), n);
  }
  u8(n: number): Uint8Array {
    return new Uint8Array(this.buf, this.take(n), n);
  }

  private take(bytes: number): number {
    const at = this.off;
    this.off += arenaBytes(bytes);
    if (this.off > this.buf.byteLength) throw new Error('arena: sized too small');
    return at;
  }
}

/** Bytes an array of `bytes` takes in an arena: rounded up to 8 so doubles stay aligned. */
export function arenaBytes(bytes: number): number {
  return Math.ceil(bytes / 8) * 8;
}

/**
 * Buffers kept from one plan to the next (the parts of one answer, planned one after another on
 * a thread: request/answer/parts.ts), one per slot, reused when big enough. Why: a million requests'
 * plan wrote ~600 MB of fresh memory, and writing fresh pages (the kernel's faults and zeroing,
 * the cache misses, the collections external memory starts) was a third of its time; a part's
 * ~10-40 MB written again and again stays mapped and partly in cache.
 */
export class ArenaMemory {
  private readonly bufs: (ArrayBuffer | undefined)[] = [];
  take(slot: number, bytes: number): ArrayBuffer {
    const b = this.bufs[slot];
    if (b && b.byteLength >= bytes) return b;
    // Some slack, so a slightly bigger part does not allocate again.
    const fresh = new ArrayBuffer(Math.ceil((bytes * 1.25) / 8) * 8);
    this.bufs[slot] = fresh;
    return fresh;
  }
}
