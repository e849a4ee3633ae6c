import type { Store } from '../engine/client';
import type { Sql } from './template';
import { withStages } from '../engine/stages';

/**
 * Runs a query under the store's budget and returns its RowBinary body (over HTTP and with
 * chDB alike). For answers too large to parse as JSON rows on the event loop.
 */
export async function execRowBinary(store: Store, q: Sql): Promise<Buffer> {
  // Under the budget and the request's class, deadline and cancellation (store.call).
  const params = store.params(q);
  return store.call((o, on) =>
    withStages(on, q.text, params, o, store.staging, async (text, opts) => {
      const rs = await on.exec({
        query: `${text}\nFORMAT RowBinary`,
        query_params: params,
        ...opts,
      });
      const chunks: Buffer[] = [];
      for await (const chunk of rs.stream as AsyncIterable<Buffer | string>) {
        chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
      }
      return Buffer.concat(chunks);
    }),
  );
}

/**
 * Reads a RowBinary body: ClickHouse's RowBinary is the columns of each row back to back, an
 * Array as a LEB128 length then its elements (numbers little-endian, strings as LEB128 length +
 * UTF-8 bytes). Numbers are copied straight into typed arrays.
 */
export class RowBinaryReader {
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

  float64(): number {
    this.need(8);
    const v = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
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

  string(): string {
    const len = this.varint();
    this.need(len);
    const s = this.buf.toString('utf8', this.pos, this.pos + len);
    this.pos += len;
    return s;
  }

  strings(): string[] {
    const n = this.varint();
    const out = new Array<string>(n);
    for (let i = 0; i < n; i++) out[i] = this.string();
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
