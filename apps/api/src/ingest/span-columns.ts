import { ByteSink } from './byte-sink';

/**
 * Decoded spans as ClickHouse Native columns, one ByteSink per column, ready to be written as a
 * Native block without building a JS object per span. Column names and types follow
 * `otel_traces` (the clickhouseexporter's table); LowCardinality and the Nested columns are
 * written as their plain String / Array types and converted by the engine on insert.
 *
 * A second, much smaller block carries our own companion table of typed attribute values
 * (see docs/ingest.md): `otel_traces` keeps every attribute value as a string, as the
 * exporter does, and only values that are not strings get a typed JSON copy there.
 */
export const TRACE_COLUMNS = [
  ['Timestamp', 'DateTime64(9)'],
  ['TraceId', 'String'],
  ['SpanId', 'String'],
  ['ParentSpanId', 'String'],
  ['TraceState', 'String'],
  ['SpanName', 'String'],
  ['SpanKind', 'String'],
  ['ServiceName', 'String'],
  ['ResourceAttributes', 'Map(String, String)'],
  ['ScopeName', 'String'],
  ['ScopeVersion', 'String'],
  ['SpanAttributes', 'Map(String, String)'],
  ['Duration', 'UInt64'],
  ['StatusCode', 'String'],
  ['StatusMessage', 'String'],
  ['Events.Timestamp', 'Array(DateTime64(9))'],
  ['Events.Name', 'Array(String)'],
  ['Events.Attributes', 'Array(Map(String, String))'],
  ['Links.TraceId', 'Array(String)'],
  ['Links.SpanId', 'Array(String)'],
  ['Links.TraceState', 'Array(String)'],
  ['Links.Attributes', 'Array(Map(String, String))'],
] as const;

export const TYPED_COLUMNS = [
  ['TraceId', 'String'],
  ['SpanId', 'String'],
  ['Timestamp', 'DateTime64(9)'],
  ['Attributes', 'Map(String, String)'],
] as const;

export function headerFor(name: string, type: string): Buffer {
  const s = new ByteSink(64);
  s.string(name);
  s.string(type);
  return Buffer.from(s.bytes());
}

const TRACE_HEADERS = TRACE_COLUMNS.map(([n, t]) => headerFor(n, t));
const TYPED_HEADERS = TYPED_COLUMNS.map(([n, t]) => headerFor(n, t));

function blockHeader(columns: number, rows: number): Buffer {
  const s = new ByteSink(16);
  s.varint(columns);
  s.varint(rows);
  return Buffer.from(s.bytes());
}

/** Native block parts in column order: a header, then each column's name, type and data. */
export function block(headers: Buffer[], rows: number, data: Buffer[][]): Buffer[] {
  const parts: Buffer[] = [blockHeader(headers.length, rows)];
  headers.forEach((h, i) => {
    parts.push(h);
    for (const d of data[i] ?? []) parts.push(d);
  });
  return parts;
}

/**
 * Buffers of released SpanColumns, per sink, for the next request: decoding a 1,000-span request
 * fills ~35 buffers of up to a few hundred kB, and allocating them afresh each time showed up as
 * garbage-collection and growth time in the ingest profile.
 */
const POOL: Buffer[][] = [];
const POOL_DEPTH = 16;
const POOL_MAX_BYTES = 8 * 1024 * 1024;

export class SpanColumns {
  private readonly sinks: ByteSink[] = [];
  private released = false;

  /** Rows (spans) written. */
  rows = 0;
  readonly ts: ByteSink;
  readonly traceId: ByteSink;
  readonly spanId: ByteSink;
  readonly parentSpanId: ByteSink;
  readonly traceState: ByteSink;
  readonly name: ByteSink;
  readonly kind: ByteSink;
  readonly service: ByteSink;
  /** Map columns: cumulative offsets per row (UInt64), then all keys, then all values. */
  readonly resOff: ByteSink;
  readonly resKeys: ByteSink;
  readonly resVals: ByteSink;
  resCount = 0;
  readonly scopeName: ByteSink;
  readonly scopeVersion: ByteSink;
  readonly attrOff: ByteSink;
  readonly attrKeys: ByteSink;
  readonly attrVals: ByteSink;
  attrCount = 0;
  readonly duration: ByteSink;
  readonly statusCode: ByteSink;
  readonly statusMessage: ByteSink;
  /** Events.*: shared per-row offsets, then per-event data; attributes nest one level more. */
  readonly evOff: ByteSink;
  evCount = 0;
  readonly evTs: ByteSink;
  readonly evName: ByteSink;
  readonly evAttrOff: ByteSink;
  readonly evAttrKeys: ByteSink;
  readonly evAttrVals: ByteSink;
  evAttrCount = 0;
  readonly lnOff: ByteSink;
  lnCount = 0;
  readonly lnTraceId: ByteSink;
  readonly lnSpanId: ByteSink;
  readonly lnTraceState: ByteSink;
  readonly lnAttrOff: ByteSink;
  readonly lnAttrKeys: ByteSink;
  readonly lnAttrVals: ByteSink;
  lnAttrCount = 0;
  /** Companion rows: spans with at least one attribute value that is not a string. */
  typedRows = 0;
  readonly tTraceId: ByteSink;
  readonly tSpanId: ByteSink;
  readonly tTs: ByteSink;
  readonly tOff: ByteSink;
  readonly tKeys: ByteSink;
  readonly tVals: ByteSink;
  tCount = 0;

  /** `sizeHint`: the encoded request size, to start the sinks near their final size. */
  constructor(sizeHint: number) {
    const big = Math.min(1 << 22, Math.max(256, sizeHint >> 2));
    const mid = Math.min(1 << 20, Math.max(128, sizeHint >> 4));
    const small = Math.min(1 << 18, Math.max(64, sizeHint >> 6));
    this.ts = this.sink(small);
    this.traceId = this.sink(mid);
    this.spanId = this.sink(mid);
    this.parentSpanId = this.sink(mid);
    this.traceState = this.sink(small);
    this.name = this.sink(mid);
    this.kind = this.sink(small);
    this.service = this.sink(small);
    this.resOff = this.sink(small);
    this.resKeys = this.sink(big);
    this.resVals = this.sink(big);
    this.scopeName = this.sink(small);
    this.scopeVersion = this.sink(small);
    this.attrOff = this.sink(small);
    this.attrKeys = this.sink(big);
    this.attrVals = this.sink(big);
    this.duration = this.sink(small);
    this.statusCode = this.sink(small);
    this.statusMessage = this.sink(small);
    this.evOff = this.sink(small);
    this.evTs = this.sink(64);
    this.evName = this.sink(64);
    this.evAttrOff = this.sink(64);
    this.evAttrKeys = this.sink(64);
    this.evAttrVals = this.sink(64);
    this.lnOff = this.sink(small);
    this.lnTraceId = this.sink(64);
    this.lnSpanId = this.sink(64);
    this.lnTraceState = this.sink(64);
    this.lnAttrOff = this.sink(64);
    this.lnAttrKeys = this.sink(64);
    this.lnAttrVals = this.sink(64);
    this.tTraceId = this.sink(64);
    this.tSpanId = this.sink(32);
    this.tTs = this.sink(32);
    this.tOff = this.sink(32);
    this.tKeys = this.sink(64);
    this.tVals = this.sink(64);
  }

  /** A sink on a pooled buffer when one is free (they come back in the same order). */
  private sink(initialBytes: number): ByteSink {
    const buf = POOL[this.sinks.length]?.pop();
    const sink = new ByteSink(buf ?? initialBytes);
    this.sinks.push(sink);
    return sink;
  }

  /**
   * Gives the buffers back for reuse. Only once nothing reads the blocks any more (after the
   * insert, or when the request was refused); the columns must not be used afterwards.
   */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.sinks.forEach((s, i) => {
      const pool = (POOL[i] ??= []);
      if (pool.length < POOL_DEPTH && s.buf.length <= POOL_MAX_BYTES) pool.push(s.buf);
    });
  }

  /** The `otel_traces` rows as one Native block (a list of buffers to write in order). */
  tracesBlock(): Buffer[] {
    const ev = this.evOff.bytes();
    const ln = this.lnOff.bytes();
    return block(TRACE_HEADERS, this.rows, [
      [this.ts.bytes()],
      [this.traceId.bytes()],
      [this.spanId.bytes()],
      [this.parentSpanId.bytes()],
      [this.traceState.bytes()],
      [this.name.bytes()],
      [this.kind.bytes()],
      [this.service.bytes()],
      [this.resOff.bytes(), this.resKeys.bytes(), this.resVals.bytes()],
      [this.scopeName.bytes()],
      [this.scopeVersion.bytes()],
      [this.attrOff.bytes(), this.attrKeys.bytes(), this.attrVals.bytes()],
      [this.duration.bytes()],
      [this.statusCode.bytes()],
      [this.statusMessage.bytes()],
      [ev, this.evTs.bytes()],
      [ev, this.evName.bytes()],
      [ev, this.evAttrOff.bytes(), this.evAttrKeys.bytes(), this.evAttrVals.bytes()],
      [ln, this.lnTraceId.bytes()],
      [ln, this.lnSpanId.bytes()],
      [ln, this.lnTraceState.bytes()],
      [ln, this.lnAttrOff.bytes(), this.lnAttrKeys.bytes(), this.lnAttrVals.bytes()],
    ]);
  }

  /** The companion rows as one Native block, or an empty list when there are none. */
  typedBlock(): Buffer[] {
    if (this.typedRows === 0) return [];
    return block(TYPED_HEADERS, this.typedRows, [
      [this.tTraceId.bytes()],
      [this.tSpanId.bytes()],
      [this.tTs.bytes()],
      [this.tOff.bytes(), this.tKeys.bytes(), this.tVals.bytes()],
    ]);
  }
}
