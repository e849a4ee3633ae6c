/**
 * A minimal protobuf wire-format reader for the ingest hot path. Hand-rolled rather than
 * protobufjs' Reader because the decoder copies length-prefixed strings straight into Native
 * columns and needs field positions, not values (bench/README.md has the comparison).
 *
 * Every read is bounded by an explicit `end`; anything malformed throws a DecodeError, never
 * reads past the buffer and never loops without consuming input, so fuzzed bodies are safe.
 */
export class DecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecodeError';
  }
}

export const WIRE_VARINT = 0;
export const WIRE_I64 = 1;
export const WIRE_LEN = 2;
export const WIRE_I32 = 5;

export class ProtoReader {
  /** Position of the next byte to read. */
  p = 0;
  /** The two halves of the last 64-bit varint read by `varint64`. */
  lo = 0;
  hi = 0;

  constructor(readonly b: Buffer) {}

  /** A varint of up to 32 significant bits (tags, enums, lengths); longer ones keep the low bits. */
  varint32(end: number): number {
    const b = this.b;
    let p = this.p;
    let byte = b[p++] ?? 0;
    let v = byte & 0x7f;
    if (byte >= 0x80) {
      byte = b[p++] ?? 0;
      v |= (byte & 0x7f) << 7;
      if (byte >= 0x80) {
        byte = b[p++] ?? 0;
        v |= (byte & 0x7f) << 14;
        if (byte >= 0x80) {
          byte = b[p++] ?? 0;
          v |= (byte & 0x7f) << 21;
          if (byte >= 0x80) {
            byte = b[p++] ?? 0;
            v |= byte << 28;
            // Up to five more bytes carry bits beyond 32: skip them.
            let extra = 0;
            while (byte >= 0x80) {
              if (++extra > 5) throw new DecodeError(`varint longer than 10 bytes at ${p}`);
              byte = b[p++] ?? 0;
            }
          }
        }
      }
    }
    if (p > end) throw new DecodeError(`truncated varint at ${this.p}`);
    this.p = p;
    return v >>> 0;
  }

  /** A full 64-bit varint into `lo` / `hi` (unsigned halves). */
  varint64(end: number): void {
    const b = this.b;
    let p = this.p;
    let lo = 0;
    let hi = 0;
    let byte = 0;
    let done = false;
    for (let shift = 0; shift < 28; shift += 7) {
      byte = b[p++] ?? 0;
      lo |= (byte & 0x7f) << shift;
      if (byte < 0x80) {
        done = true;
        break;
      }
    }
    if (!done) {
      byte = b[p++] ?? 0;
      lo |= (byte & 0x0f) << 28;
      hi = (byte & 0x7f) >> 4;
      if (byte >= 0x80) {
        for (let shift = 3; shift < 32; shift += 7) {
          byte = b[p++] ?? 0;
          hi |= (byte & 0x7f) << shift;
          if (byte < 0x80) {
            done = true;
            break;
          }
        }
        if (!done) throw new DecodeError(`varint longer than 10 bytes at ${this.p}`);
      }
    }
    if (p > end) throw new DecodeError(`truncated varint at ${this.p}`);
    this.p = p;
    this.lo = lo >>> 0;
    this.hi = hi >>> 0;
  }

  /** Reads a length prefix and returns where the field ends, checked against `end`. */
  lenEnd(end: number): number {
    const at = this.p;
    const b = this.b;
    let p = at;
    let n = 0;
    let mul = 1;
    for (;;) {
      const byte = b[p++] ?? 0;
      n += (byte & 0x7f) * mul;
      if (byte < 0x80) break;
      mul *= 128;
      if (mul > 2 ** 35) throw new DecodeError(`length prefix too long at ${at}`);
    }
    const fieldEnd = p + n;
    if (p > end || fieldEnd > end)
      throw new DecodeError(`length ${n} at ${at} runs past its message`);
    this.p = p;
    return fieldEnd;
  }

  /** Skips a field of the given wire type. Groups (3, 4) are obsolete and refused. */
  skip(wireType: number, end: number): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.varint64(end);
        return;
      case WIRE_I64:
        this.p += 8;
        break;
      case WIRE_LEN:
        this.p = this.lenEnd(end);
        return;
      case WIRE_I32:
        this.p += 4;
        break;
      default:
        throw new DecodeError(`unsupported wire type ${wireType} at ${this.p}`);
    }
    if (this.p > end) throw new DecodeError(`truncated fixed-size field before ${end}`);
  }

  /** A little-endian double at `p` (8 bytes already bounds-checked by the caller). */
  double(p: number): number {
    return this.b.readDoubleLE(p);
  }
}
