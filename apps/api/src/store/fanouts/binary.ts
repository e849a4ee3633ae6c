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

  /** Array(UInt64) as decimal strings (map keys; 64-bit values do not fit a double). */
  uint64Keys(): string[] {
    const n = this.varint();
    this.need(n * 8);
    const out = new Array<string>(n);
    for (let i = 0; i < n; i++) out[i] = this.buf.readBigUInt64LE(this.pos + i * 8).toString();
    this.pos += n * 8;
    return out;
  }

  /**
   * A dictionary sent as Array(UInt64) hashes in id order, then Array(Tuple(UInt64, String))
   * (hash, value) pairs: the values in id order. Throws if two values share a hash.
   */
  dictionary(): string[] {
    const order = this.uint64Keys();
    const n = this.varint();
    const byHash = new Map<string, string>();
    for (let i = 0; i < n; i++) {
      this.need(8);
      const h = this.buf.readBigUInt64LE(this.pos).toString();
      this.pos += 8;
      const len = this.varint();
      this.need(len);
      const v = this.buf.toString('utf8', this.pos, this.pos + len);
      this.pos += len;
      if (byHash.has(h) && byHash.get(h) !== v)
        throw new Error(
          `RowBinary: hash collision between ${JSON.stringify(v)} and ${JSON.stringify(byHash.get(h))}`,
        );
      byHash.set(h, v);
    }
    return order.map((h) => {
      const v = byHash.get(h);
      if (v === undefined) throw new Error('RowBinary: dictionary hash without a value');
      return v;
    });
  }

  done(): boolean {
    return this.pos === this.buf.length;
  }
}

/** The row `loadLeafCalls` selects, as typed columns (order fixed in fanouts-leaves.ts). */
export interface LeafRow {
  fanouts: number;
  matched: number;
  traceIds: string[];
  parentSpanIds: string[];
  fanoutStartMs: Float64Array;
  /** Fan-out start, ns relative to the query's base (exact integers in float64). */
  fanoutStartRel: Float64Array;
  widths: Uint32Array;
  /** Per call: start, ns relative to the base; duration, ns. */
  startRel: Float64Array;
  durNs: Float64Array;
  host: Uint32Array;
  hostDict: string[];
  mode: Uint32Array;
  modeDict: string[];
  attrs: Uint32Array[];
  attrDicts: string[][];
  /** Per fan-out sampling adjusted count, when the query asked for it. */
  weights?: Float64Array;
}

export function readLeafRow(buf: Buffer, attributeCount: number, weights = false): LeafRow {
  const r = new RowBinaryReader(buf);
  const row: LeafRow = {
    fanouts: r.uint32(),
    matched: r.uint32(),
    traceIds: r.strings(),
    parentSpanIds: r.strings(),
    fanoutStartMs: r.float64s(),
    fanoutStartRel: r.float64s(),
    widths: r.uint32s(),
    startRel: r.float64s(),
    durNs: r.float64s(),
    host: r.uint32s(),
    hostDict: r.dictionary(),
    mode: r.uint32s(),
    modeDict: r.dictionary(),
    attrs: [],
    attrDicts: [],
  };
  for (let i = 0; i < attributeCount; i++) {
    row.attrs.push(r.uint32s());
    row.attrDicts.push(r.dictionary());
  }
  if (weights) row.weights = r.float64s();
  if (!r.done()) throw new Error('RowBinary: unexpected trailing bytes');
  if (row.widths.length !== row.fanouts) throw new Error('RowBinary: fan-out count mismatch');
  return row;
}
