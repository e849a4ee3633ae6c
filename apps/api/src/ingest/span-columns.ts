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

function headerFor(name: string, type: string): Buffer {
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
function block(headers: Buffer[], rows: number, data: Buffer[][]): Buffer[] {
  const parts: Buffer[] = [blockHeader(headers.length, rows)];
  headers.forEach((h, i) => {
    parts.push(h);
    for (const d of data[i] ?? []) parts.push(d);
  });
  return parts;
}

export class SpanColumns {
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
  readonly tTraceId = new ByteSink(64);
  readonly tSpanId = new ByteSink(32);
  readonly tTs = new ByteSink(32);
  readonly tOff = new ByteSink(32);
  readonly tKeys = new ByteSink(64);
  readonly tVals = new ByteSink(64);
  tCount = 0;

  /** `sizeHint`: the encoded request size, to start the sinks near their final size. */
  constructor(sizeHint: number) {
    const big = Math.min(1 << 22, Math.max(256, sizeHint >> 2));
    const mid = Math.min(1 << 20, Math.max(128, sizeHint >> 4));
    const small = Math.min(1 << 18, Math.max(64, sizeHint >> 6));
    this.ts = new ByteSink(small);
    this.traceId = new ByteSink(mid);
    this.spanId = new ByteSink(mid);
    this.parentSpanId = new ByteSink(mid);
    this.traceState = new ByteSink(small);
    this.name = new ByteSink(mid);
    this.kind = new ByteSink(small);
    this.service = new ByteSink(small);
    this.resOff = new ByteSink(small);
    this.resKeys = new ByteSink(big);
    this.resVals = new ByteSink(big);
    this.scopeName = new ByteSink(small);
    this.scopeVersion = new ByteSink(small);
    this.attrOff = new ByteSink(small);
    this.attrKeys = new ByteSink(big);
    this.attrVals = new ByteSink(big);
    this.duration = new ByteSink(small);
    this.statusCode = new ByteSink(small);
    this.statusMessage = new ByteSink(small);
    this.evOff = new ByteSink(small);
    this.evTs = new ByteSink(64);
    this.evName = new ByteSink(64);
    this.evAttrOff = new ByteSink(64);
    this.evAttrKeys = new ByteSink(64);
    this.evAttrVals = new ByteSink(64);
    this.lnOff = new ByteSink(small);
    this.lnTraceId = new ByteSink(64);
    this.lnSpanId = new ByteSink(64);
    this.lnTraceState = new ByteSink(64);
    this.lnAttrOff = new ByteSink(64);
    this.lnAttrKeys = new ByteSink(64);
    this.lnAttrVals = new ByteSink(64);
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
