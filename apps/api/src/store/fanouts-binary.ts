import type { AttributeColumn, LeafCalls } from '@tailscope/analysis';
import type { LoadedLeafCalls } from './fanouts';

/**
 * Reads the one RowBinary row `loadLeafCalls` selects: ClickHouse's RowBinary is the columns of
 * each row back to back, an Array as a LEB128 length then its elements (numbers little-endian,
 * strings as LEB128 length + UTF-8 bytes). Numbers are copied straight into typed arrays.
 */
class RowBinaryReader {
  private pos = 0;
  constructor(private readonly buf: Buffer) {}

  private varint(): number {
    let n = 0;
    let shift = 0;
    for (;;) {
      const b = this.buf[this.pos++];
      if (b === undefined) throw new Error('RowBinary: truncated varint');
      n += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return n;
      shift += 7;
    }
  }

  private need(bytes: number): void {
    if (this.pos + bytes > this.buf.length) throw new Error('RowBinary: truncated value');
  }

  uint32(): number {
    this.need(4);
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }

  float64s(): Float64Array {
    const n = this.varint();
    this.need(n * 8);
    // Copy through a fresh, aligned buffer: the response buffer's offset need not be 8-aligned.
    const out = new Float64Array(n);
    new Uint8Array(out.buffer).set(this.buf.subarray(this.pos, this.pos + n * 8));
    this.pos += n * 8;
    return out;
  }

  uint32s(): Uint32Array {
    const n = this.varint();
    this.need(n * 4);
    const out = new Uint32Array(n);
    new Uint8Array(out.buffer).set(this.buf.subarray(this.pos, this.pos + n * 4));
    this.pos += n * 4;
    return out;
  }

  strings(): string[] {
    const n = this.varint();
    const out = new Array<string>(n);
    for (let i = 0; i < n; i++) {
      const len = this.varint();
      this.need(len);
      out[i] = this.buf.toString('utf8', this.pos, this.pos + len);
      this.pos += len;
    }
    return out;
  }

  done(): boolean {
    return this.pos === this.buf.length;
  }
}

/** LeafCalls from the RowBinary row of `loadLeafCalls` (column order fixed there). */
export function leafCallsFromRowBinary(
  buf: Buffer,
  attributeKeys: readonly string[],
): LoadedLeafCalls {
  const r = new RowBinaryReader(buf);
  const fanouts = r.uint32();
  const matched = r.uint32();
  const traceIds = r.strings();
  const parentSpanIds = r.strings();
  const fanoutStartMs = r.float64s();
  const widths = r.uint32s();
  const startMs = r.float64s();
  const durationMs = r.float64s();
  const host = r.uint32s();
  const hosts = r.strings();
  const mode = r.uint32s();
  const modes = r.strings();
  const background = r.uint32s();
  const backgrounds = r.strings();
  const attributes: Record<string, AttributeColumn> = {};
  for (const key of attributeKeys) {
    const index = r.uint32s();
    attributes[key] = { index, values: r.strings() };
  }
  if (!r.done()) throw new Error('RowBinary: unexpected trailing bytes');
  if (widths.length !== fanouts) throw new Error('RowBinary: fan-out count mismatch');
  const fanoutOffsets = new Uint32Array(fanouts + 1);
  for (let i = 0; i < fanouts; i++)
    fanoutOffsets[i + 1] = (fanoutOffsets[i] as number) + (widths[i] as number);
  const calls: LeafCalls = {
    fanoutOffsets,
    fanoutStartMs,
    traceIds,
    parentSpanIds,
    startMs,
    durationMs,
    host,
    mode,
    background,
    hosts,
    modes,
    backgrounds,
  };
  if (attributeKeys.length > 0) calls.attributes = attributes;
  return { calls, sampled: matched > fanouts };
}
