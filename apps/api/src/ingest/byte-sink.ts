/**
 * A growable byte buffer for building ClickHouse Native columns. The ingest hot path writes
 * millions of small values per second, so the methods are plain loops over a Buffer (faster than
 * Buffer.write for the short ASCII and id values that dominate) and growth doubles.
 */
export class ByteSink {
  buf: Buffer;
  len = 0;

  /** `initial`: a size, or a buffer to reuse (from a pool; its contents are overwritten). */
  constructor(initial: number | Buffer = 256) {
    this.buf = typeof initial === 'number' ? Buffer.allocUnsafe(Math.max(16, initial)) : initial;
  }

  /** Makes room for `n` more bytes. */
  reserve(n: number): void {
    if (this.len + n > this.buf.length) this.grow(n);
  }

  private grow(n: number): void {
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }

  u8(v: number): void {
    this.reserve(1);
    this.buf[this.len++] = v;
  }

  /** Unsigned LEB128, the length prefix of Native strings (same encoding as protobuf's). */
  varint(v: number): void {
    this.reserve(10);
    const b = this.buf;
    let p = this.len;
    while (v >= 0x80) {
      b[p++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    b[p++] = v;
    this.len = p;
  }

  /** A little-endian 64-bit integer given as two unsigned 32-bit halves. */
  u64(lo: number, hi: number): void {
    this.reserve(8);
    const b = this.buf;
    const p = this.len;
    b[p] = lo & 0xff;
    b[p + 1] = (lo >>> 8) & 0xff;
    b[p + 2] = (lo >>> 16) & 0xff;
    b[p + 3] = lo >>> 24;
    b[p + 4] = hi & 0xff;
    b[p + 5] = (hi >>> 8) & 0xff;
    b[p + 6] = (hi >>> 16) & 0xff;
    b[p + 7] = hi >>> 24;
    this.len = p + 8;
  }

  /** A little-endian 32-bit integer (UInt32 or Int32 columns). */
  u32(v: number): void {
    this.reserve(4);
    this.buf.writeUInt32LE(v >>> 0, this.len);
    this.len += 4;
  }

  /** A little-endian IEEE 754 double (Float64 columns). */
  f64(v: number): void {
    this.reserve(8);
    this.buf.writeDoubleLE(v, this.len);
    this.len += 8;
  }

  /**
   * Copies `src[start, end)` as is. Short runs (ids, names, most attribute values) are copied
   * byte by byte: Uint8Array.set and Buffer.copy both allocate a view of the source first.
   */
  copy(src: Uint8Array, start: number, end: number): void {
    const n = end - start;
    this.reserve(n);
    if (n <= 64) {
      const b = this.buf;
      let p = this.len;
      for (let i = start; i < end; i++) b[p++] = src[i] ?? 0;
      this.len = p;
    } else {
      this.buf.set(src.subarray(start, end), this.len);
      this.len += n;
    }
  }

  /** A Native String: varint byte length, then the UTF-8 bytes. */
  string(s: string): void {
    const n = s.length;
    // ASCII fast path: one byte per UTF-16 unit, no Buffer.write call.
    if (n < 128) {
      this.reserve(n + 1);
      const b = this.buf;
      const start = this.len;
      b[start] = n;
      let p = start + 1;
      for (let i = 0; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) {
          this.len = start;
          this.utf8String(s);
          return;
        }
        b[p++] = c;
      }
      this.len = p;
      return;
    }
    this.utf8String(s);
  }

  private utf8String(s: string): void {
    const n = Buffer.byteLength(s, 'utf8');
    this.varint(n);
    this.reserve(n);
    this.buf.write(s, this.len, n, 'utf8');
    this.len += n;
  }

  /** A Native String of a safe integer's decimal digits, written without a JS string. */
  decimal(v: number): void {
    if (!Number.isSafeInteger(v)) {
      this.string(String(v));
      return;
    }
    let n = Math.abs(v);
    let digits = 1;
    for (let x = n; x >= 10; x = Math.floor(x / 10)) digits++;
    const len = digits + (v < 0 ? 1 : 0);
    this.reserve(len + 1);
    const b = this.buf;
    b[this.len] = len;
    let p = this.len + len;
    this.len = p + 1;
    for (let i = 0; i < digits; i++) {
      b[p--] = 48 + (n % 10);
      n = Math.floor(n / 10);
    }
    if (v < 0) b[p] = 45;
  }

  /** A Native String holding `bytes` as is. */
  bytesString(bytes: Uint8Array): void {
    this.varint(bytes.length);
    this.copy(bytes, 0, bytes.length);
  }

  /** The bytes written so far (a view, not a copy). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.len);
  }
}
