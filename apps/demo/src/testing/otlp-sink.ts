import { createServer, type Server } from 'node:http';

/**
 * A tiny OTLP/HTTP protobuf receiver for tests: decodes just the fields the demo's checks need
 * (resource and span attributes, ids, names, kinds, times) with a minimal protobuf wire reader.
 * It is not Tailscope's ingest and makes no promise beyond what the demo sends.
 */

export interface SinkSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, string>;
  resource: Record<string, string>;
}

class Reader {
  pos = 0;
  constructor(
    private readonly buf: Buffer,
    private readonly end = buf.length,
  ) {}
  done(): boolean {
    return this.pos >= this.end;
  }
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = this.buf[this.pos++];
      if (b === undefined) throw new Error('truncated varint');
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
  }
  tag(): { field: number; wire: number } {
    const t = Number(this.varint());
    return { field: t >>> 3, wire: t & 7 };
  }
  sub(): Reader {
    const len = Number(this.varint());
    const r = new Reader(this.buf, this.pos + len);
    r.pos = this.pos;
    this.pos += len;
    return r;
  }
  bytes(): Buffer {
    const len = Number(this.varint());
    const b = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return b;
  }
  fixed64(): bigint {
    const v = this.buf.readBigUInt64LE(this.pos);
    this.pos += 8;
    return v;
  }
  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) {
      // Read the length first: `this.pos += f()` would add to the position before f moved it.
      const len = Number(this.varint());
      this.pos += len;
    } else if (wire === 5) this.pos += 4;
    else throw new Error(`unsupported wire type ${String(wire)}`);
  }
}

function anyValue(r: Reader): string {
  let out = '';
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === 2) out = r.bytes().toString('utf8');
    else if (field === 2 && wire === 0) out = r.varint() === 0n ? 'false' : 'true';
    else if (field === 3 && wire === 0) out = BigInt.asIntN(64, r.varint()).toString();
    else if (field === 4 && wire === 1) {
      const v = r.fixed64();
      const b = Buffer.alloc(8);
      b.writeBigUInt64LE(v);
      out = String(b.readDoubleLE(0));
    } else r.skip(wire);
  }
  return out;
}

function keyValue(r: Reader, into: Record<string, string>): void {
  let key = '';
  let value = '';
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === 2) key = r.bytes().toString('utf8');
    else if (field === 2 && wire === 2) value = anyValue(r.sub());
    else r.skip(wire);
  }
  into[key] = value;
}

function span(r: Reader, resource: Record<string, string>): SinkSpan {
  const s: SinkSpan = {
    traceId: '',
    spanId: '',
    parentSpanId: '',
    name: '',
    kind: 0,
    startNs: 0n,
    endNs: 0n,
    attributes: {},
    resource,
  };
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === 2) s.traceId = r.bytes().toString('hex');
    else if (field === 2 && wire === 2) s.spanId = r.bytes().toString('hex');
    else if (field === 4 && wire === 2) s.parentSpanId = r.bytes().toString('hex');
    else if (field === 5 && wire === 2) s.name = r.bytes().toString('utf8');
    else if (field === 6 && wire === 0) s.kind = Number(r.varint());
    else if (field === 7 && wire === 1) s.startNs = r.fixed64();
    else if (field === 8 && wire === 1) s.endNs = r.fixed64();
    else if (field === 9 && wire === 2) keyValue(r.sub(), s.attributes);
    else r.skip(wire);
  }
  return s;
}

/** Decodes an ExportTraceServiceRequest. */
export function decodeTraces(buf: Buffer): SinkSpan[] {
  const out: SinkSpan[] = [];
  const top = new Reader(buf);
  while (!top.done()) {
    const { field, wire } = top.tag();
    if (field !== 1 || wire !== 2) {
      top.skip(wire);
      continue;
    }
    const rs = top.sub();
    const resource: Record<string, string> = {};
    const scopes: Reader[] = [];
    while (!rs.done()) {
      const t = rs.tag();
      if (t.field === 1 && t.wire === 2) {
        const res = rs.sub();
        while (!res.done()) {
          const a = res.tag();
          if (a.field === 1 && a.wire === 2) keyValue(res.sub(), resource);
          else res.skip(a.wire);
        }
      } else if (t.field === 2 && t.wire === 2) scopes.push(rs.sub());
      else rs.skip(t.wire);
    }
    for (const ss of scopes) {
      while (!ss.done()) {
        const t = ss.tag();
        if (t.field === 2 && t.wire === 2) out.push(span(ss.sub(), resource));
        else ss.skip(t.wire);
      }
    }
  }
  return out;
}

export interface OtlpSink {
  url: string;
  spans: SinkSpan[];
  close(): Promise<void>;
}

export async function startOtlpSink(): Promise<OtlpSink> {
  const spans: SinkSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        spans.push(...decodeTraces(Buffer.concat(chunks)));
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      } catch (err) {
        res.writeHead(400).end(String(err));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${String(port)}/v1/traces`,
    spans,
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
