/**
 * Typed arrays carved out of one ArrayBuffer. Why: V8 counts typed-array buffers as external
 * memory and starts a full garbage collection each time that grows by some tens of MB; a
 * million-request replay allocating twenty 40-130 MB columns one by one paid a dozen full
 * collections (a third of its time). One buffer for all of them grows it once.
 */
export class Arena {
  private readonly buf: ArrayBuffer;
  private off = 0;

  /** `bytes`: the sum of arenaBytes(...) of every array to be taken. */
  constructor(bytes: number) {
    this.buf = new ArrayBuffer(bytes);
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
