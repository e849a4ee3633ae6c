import { ByteSink } from './byte-sink';
import { NO_RESOURCE, decodeResource, decodeScope } from './decode-protobuf';
import {
  writeExpHistogramPoint,
  writeHistogramPoint,
  writeNumberPoint,
  writeSummaryPoint,
  type MetricData,
} from './decode-metric-points';
import {
  DEFAULT_LIMITS,
  SCOPE,
  active,
  beginRequest,
  skipChecked,
  type IngestLimits,
} from './limits';
import { pointTables, type PointTable } from './metric-columns';
import { writeAttributes, type MetricContext, type MetricScope } from './metric-row';
import {
  METRIC,
  METRIC_DATA,
  METRICS_REQUEST,
  RESOURCE_METRICS,
  SCOPE_METRICS,
} from './metrics-shapes';
import { ProtoReader, WIRE_LEN, WIRE_VARINT } from './proto-reader';
import { T_LEN1, T_LEN2, tag, type Resource } from './proto-helpers';

/**
 * ExportMetricsServiceRequest (protobuf) -> Native blocks of the exporter's five metrics tables,
 * in one pass over the bytes, as decode-protobuf.ts does for spans. Points whose times the
 * store cannot hold are rejected alone (partial success); anything malformed makes the whole
 * request a DecodeError before a single point is queued.
 */

export interface DecodedMetrics {
  /** Gauge, sum, histogram, exponential histogram, summary (METRIC_KINDS order). */
  tables: PointTable[];
  accepted: number;
  rejected: number;
  rejectReason: string;
  dropMessage: string;
}

const T_LEN3 = tag(3, WIRE_LEN);
const EMPTY: Buffer = Buffer.from([0]);

/** A length-prefixed field's bytes (prefix included) as a Native string. */
function nativeAt(b: Buffer, at: number, end: number): Buffer {
  return at < 0 ? EMPTY : Buffer.from(b.subarray(at, end));
}

function decodeMetricScope(r: ProtoReader, start: number, end: number): MetricScope {
  const s = decodeScope(r, start, end);
  const keys = new ByteSink(64);
  const vals = new ByteSink(64);
  const count = writeAttributes(r, start, end, T_LEN3, keys, vals);
  let dropped = 0;
  r.p = start;
  while (r.p < end) {
    const t = r.varint32(end);
    if (t === tag(4, WIRE_VARINT)) dropped = r.varint32(end);
    else skipChecked(r, t, end, SCOPE);
  }
  return {
    name: nativeAt(r.b, s.nameAt, s.nameEnd),
    version: nativeAt(r.b, s.versionAt, s.versionEnd),
    keys: Buffer.from(keys.bytes()),
    vals: Buffer.from(vals.bytes()),
    count,
    dropped,
    schema: EMPTY,
  };
}

const NO_SCOPE: MetricScope = {
  name: EMPTY,
  version: EMPTY,
  keys: Buffer.alloc(0),
  vals: Buffer.alloc(0),
  count: 0,
  dropped: 0,
  schema: EMPTY,
};

/**
 * Every field of a message [start, end), handed to `each`: a LEN field with its contents
 * [s, e) and the position of its length prefix; any other with s = -1, which `each` may read
 * (else it is skipped here).
 */
function walk(
  r: ProtoReader,
  start: number,
  end: number,
  each: (tagValue: number, s: number, e: number, prefixAt: number) => void,
): void {
  r.p = start;
  while (r.p < end) {
    const t = r.varint32(end);
    if ((t & 7) === WIRE_LEN) {
      const at = r.p;
      const e = r.lenEnd(end);
      each(t, r.p, e, at);
      r.p = e;
    } else {
      const at = r.p;
      each(t, -1, -1, at);
      if (r.p === at) r.skip(t & 7, end);
    }
  }
}

export function decodeMetricsRequest(
  input: Uint8Array,
  limits: IngestLimits = DEFAULT_LIMITS,
): DecodedMetrics {
  const b = beginRequest(input, limits);
  const r = new ProtoReader(b);
  const out: DecodedMetrics = {
    tables: pointTables(),
    accepted: 0,
    rejected: 0,
    rejectReason: '',
    dropMessage: '',
  };
  walk(r, 0, b.length, (t, s, e) => {
    if (t === T_LEN1) decodeResourceMetrics(r, s, e, out);
    else if (s < 0) skipChecked(r, t, b.length, METRICS_REQUEST);
  });
  out.dropMessage = active.drops.message(limits);
  return out;
}

function decodeResourceMetrics(r: ProtoReader, start: number, end: number, out: DecodedMetrics) {
  let resource: Resource = NO_RESOURCE;
  let schema: Buffer = EMPTY;
  walk(r, start, end, (t, s, e, at) => {
    if (t === T_LEN1) resource = decodeResource(r, s, e);
    else if (t === T_LEN3) schema = nativeAt(r.b, at, e);
    else if (s < 0) skipChecked(r, t, end, RESOURCE_METRICS);
  });
  walk(r, start, end, (t, s, e) => {
    if (t === T_LEN2) decodeScopeMetrics(r, s, e, resource, schema, out);
    else if (s < 0) r.skip(t & 7, end);
  });
}

function decodeScopeMetrics(
  r: ProtoReader,
  start: number,
  end: number,
  resource: Resource,
  resourceSchema: Buffer,
  out: DecodedMetrics,
) {
  let scope = NO_SCOPE;
  let schema: Buffer = EMPTY;
  walk(r, start, end, (t, s, e, at) => {
    if (t === T_LEN1) scope = decodeMetricScope(r, s, e);
    else if (t === T_LEN3) schema = nativeAt(r.b, at, e);
    else if (s < 0) skipChecked(r, t, end, SCOPE_METRICS);
  });
  const withSchema: MetricScope = { ...scope, schema };
  walk(r, start, end, (t, s, e) => {
    if (t === T_LEN2) decodeMetric(r, s, e, { resource, resourceSchema, scope: withSchema }, out);
    else if (s < 0) r.skip(t & 7, end);
  });
}

type Base = Pick<MetricContext, 'resource' | 'resourceSchema' | 'scope'>;

function decodeMetric(r: ProtoReader, start: number, end: number, base: Base, out: DecodedMetrics) {
  const ctx: MetricContext = {
    ...base,
    nameAt: -1,
    nameEnd: -1,
    descAt: -1,
    descEnd: -1,
    unitAt: -1,
    unitEnd: -1,
  };
  let kind = 0;
  let dataStart = -1;
  let dataEnd = -1;
  walk(r, start, end, (t, s, e, at) => {
    const no = t >>> 3;
    if (s < 0) skipChecked(r, t, end, METRIC);
    else if (no === 1) [ctx.nameAt, ctx.nameEnd] = [at, e];
    else if (no === 2) [ctx.descAt, ctx.descEnd] = [at, e];
    else if (no === 3) [ctx.unitAt, ctx.unitEnd] = [at, e];
    else if (no === 5 || no === 7 || no === 9 || no === 10 || no === 11) {
      // oneof data: the last one on the wire wins, as protobuf parsers do.
      [kind, dataStart, dataEnd] = [no, s, e];
    }
  });
  if (kind === 0) return;
  decodeMetricData(r, kind, dataStart, dataEnd, ctx, out);
}

const TABLE_OF_FIELD: Record<number, number> = { 5: 0, 7: 1, 9: 2, 10: 3, 11: 4 };

function decodeMetricData(
  r: ProtoReader,
  kind: number,
  start: number,
  end: number,
  ctx: MetricContext,
  out: DecodedMetrics,
) {
  const data: MetricData = { temporality: 0, monotonic: false };
  walk(r, start, end, (t, s) => {
    if (t === tag(2, WIRE_VARINT)) data.temporality = r.varint32(end);
    else if (t === tag(3, WIRE_VARINT)) data.monotonic = r.varint32(end) !== 0;
    else if (s < 0) skipChecked(r, t, end, METRIC_DATA);
  });
  const table = out.tables[TABLE_OF_FIELD[kind] ?? 0];
  if (!table) return;
  walk(r, start, end, (t, s, e) => {
    if (s < 0) {
      r.skip(t & 7, end);
      return;
    }
    if (t !== T_LEN1) return;
    let reason: string;
    if (kind === 5 || kind === 7) reason = writeNumberPoint(table, r, ctx, s, e, data);
    else if (kind === 9) reason = writeHistogramPoint(table, r, ctx, s, e, data);
    else if (kind === 10) reason = writeExpHistogramPoint(table, r, ctx, s, e, data);
    else reason = writeSummaryPoint(table, r, ctx, s, e);
    if (reason === '') out.accepted++;
    else {
      out.rejected++;
      if (out.rejectReason === '') out.rejectReason = reason;
    }
  });
}

/** Data points in a request from its framing alone (for the replay backlog); 0 if it does not parse. */
export function countPoints(b: Buffer): number {
  const r = new ProtoReader(b);
  let n = 0;
  try {
    walk(r, 0, b.length, (t, s, e) => {
      if (t !== T_LEN1) return;
      walk(r, s, e, (t2, s2, e2) => {
        if (t2 !== T_LEN2) return;
        walk(r, s2, e2, (t3, s3, e3) => {
          if (t3 !== T_LEN2) return;
          walk(r, s3, e3, (t4, s4, e4) => {
            if (s4 < 0 || !(t4 >>> 3 in TABLE_OF_FIELD)) return;
            walk(r, s4, e4, (t5) => {
              if (t5 === T_LEN1) n++;
            });
          });
        });
      });
    });
  } catch {
    return 0;
  }
  return n;
}
