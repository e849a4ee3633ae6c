import protobuf from 'protobufjs/minimal';
import {
  array,
  double,
  enumValue,
  field,
  hexId,
  int64,
  jsonBodyToProtobuf,
  object,
  string,
  writeBytes,
  writeFixed64,
  writeKeyValues,
  writeString,
  type Json,
  type Writer,
} from './decode-json';
import { DecodeError } from './proto-reader';

/**
 * OTLP/JSON ExportMetricsServiceRequest -> the protobuf bytes of the same request, so JSON
 * takes the protobuf path from there on (one decoder, one write-ahead-log format), with the
 * OTLP/JSON rules of decode-json.ts: ids in hex, 64-bit integers as strings or numbers, doubles
 * as numbers or "NaN"/"Infinity", enums as integers or names, camelCase or snake_case names.
 */

const TEMPORALITY = [
  'AGGREGATION_TEMPORALITY_UNSPECIFIED',
  'AGGREGATION_TEMPORALITY_DELTA',
  'AGGREGATION_TEMPORALITY_CUMULATIVE',
];

function fixed(w: Writer, no: number, v: unknown, path: string, unsigned = true): void {
  writeFixed64(w, no, int64(v, path, unsigned));
}

function writeDouble(w: Writer, no: number, v: unknown, path: string): void {
  if (v !== undefined) w.uint32((no << 3) | 1).double(double(v, path));
}

function writeVarint(w: Writer, no: number, n: number): void {
  if (n !== 0) w.uint32(no << 3).uint32(n);
}

function flags(p: Json, path: string): number {
  const v = field(p, 'flags');
  if (v === undefined) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v >= 2 ** 32)
    throw new DecodeError(`${path}.flags: expected a 32-bit unsigned integer`);
  return v;
}

/** Each element of an array field, as an object, with its path. */
function each(
  obj: Json,
  camel: string,
  snake: string,
  path: string,
  fn: (o: Json, p: string) => void,
) {
  array(field(obj, camel, snake), `${path}.${camel}`).forEach((item, i) => {
    const p = `${path}.${camel}[${i}]`;
    fn(object(item, p) ?? {}, p);
  });
}

function nested(w: Writer, no: number, fn: () => void): void {
  w.uint32((no << 3) | 2).fork();
  fn();
  w.ldelim();
}

function times(w: Writer, p: Json, path: string): void {
  fixed(w, 2, field(p, 'startTimeUnixNano', 'start_time_unix_nano'), `${path}.startTimeUnixNano`);
  fixed(w, 3, field(p, 'timeUnixNano', 'time_unix_nano'), `${path}.timeUnixNano`);
}

function exemplars(w: Writer, no: number, p: Json, path: string): void {
  each(p, 'exemplars', 'exemplars', path, (ex, q) => {
    nested(w, no, () => {
      fixed(w, 2, field(ex, 'timeUnixNano', 'time_unix_nano'), `${q}.timeUnixNano`);
      writeDouble(w, 3, field(ex, 'asDouble', 'as_double'), `${q}.asDouble`);
      writeBytes(w, 4, hexId(field(ex, 'spanId', 'span_id'), `${q}.spanId`));
      writeBytes(w, 5, hexId(field(ex, 'traceId', 'trace_id'), `${q}.traceId`));
      fixed(w, 6, field(ex, 'asInt', 'as_int'), `${q}.asInt`, false);
      writeKeyValues(
        w,
        7,
        field(ex, 'filteredAttributes', 'filtered_attributes'),
        `${q}.filteredAttributes`,
      );
    });
  });
}

function numberPoint(w: Writer, p: Json, path: string): void {
  times(w, p, path);
  writeDouble(w, 4, field(p, 'asDouble', 'as_double'), `${path}.asDouble`);
  exemplars(w, 5, p, path);
  fixed(w, 6, field(p, 'asInt', 'as_int'), `${path}.asInt`, false);
  writeKeyValues(w, 7, field(p, 'attributes'), `${path}.attributes`);
  writeVarint(w, 8, flags(p, path));
}

function packedFixed(w: Writer, no: number, v: unknown, path: string, asDouble: boolean): void {
  const items = array(v, path);
  if (items.length === 0) return;
  w.uint32((no << 3) | 2).fork();
  items.forEach((x, i) => {
    if (asDouble) w.double(double(x, `${path}[${i}]`));
    else {
      const n = int64(x, `${path}[${i}]`, true) ?? 0n;
      w.fixed32(Number(n & 0xffffffffn)).fixed32(Number(n >> 32n));
    }
  });
  w.ldelim();
}

function histogramPoint(w: Writer, p: Json, path: string): void {
  times(w, p, path);
  fixed(w, 4, field(p, 'count'), `${path}.count`);
  writeDouble(w, 5, field(p, 'sum'), `${path}.sum`);
  packedFixed(w, 6, field(p, 'bucketCounts', 'bucket_counts'), `${path}.bucketCounts`, false);
  packedFixed(w, 7, field(p, 'explicitBounds', 'explicit_bounds'), `${path}.explicitBounds`, true);
  exemplars(w, 8, p, path);
  writeKeyValues(w, 9, field(p, 'attributes'), `${path}.attributes`);
  writeVarint(w, 10, flags(p, path));
  writeDouble(w, 11, field(p, 'min'), `${path}.min`);
  writeDouble(w, 12, field(p, 'max'), `${path}.max`);
}

function sint32(v: unknown, path: string): number {
  if (v === undefined) return 0;
  if (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) < 2 ** 31) return v;
  throw new DecodeError(`${path}: expected a 32-bit integer`);
}

function buckets(w: Writer, no: number, v: unknown, path: string): void {
  const b = object(v, path);
  if (!b) return;
  nested(w, no, () => {
    const offset = sint32(field(b, 'offset'), `${path}.offset`);
    if (offset !== 0) w.uint32(1 << 3).sint32(offset);
    const counts = array(field(b, 'bucketCounts', 'bucket_counts'), `${path}.bucketCounts`);
    if (counts.length === 0) return;
    w.uint32((2 << 3) | 2).fork();
    counts.forEach((c, i) => {
      const n = int64(c, `${path}.bucketCounts[${i}]`, true) ?? 0n;
      w.uint64({ low: Number(n & 0xffffffffn), high: Number(n >> 32n) } as unknown as number);
    });
    w.ldelim();
  });
}

function expHistogramPoint(w: Writer, p: Json, path: string): void {
  writeKeyValues(w, 1, field(p, 'attributes'), `${path}.attributes`);
  times(w, p, path);
  fixed(w, 4, field(p, 'count'), `${path}.count`);
  writeDouble(w, 5, field(p, 'sum'), `${path}.sum`);
  const scale = sint32(field(p, 'scale'), `${path}.scale`);
  if (scale !== 0) w.uint32(6 << 3).sint32(scale);
  fixed(w, 7, field(p, 'zeroCount', 'zero_count'), `${path}.zeroCount`);
  buckets(w, 8, field(p, 'positive'), `${path}.positive`);
  buckets(w, 9, field(p, 'negative'), `${path}.negative`);
  writeVarint(w, 10, flags(p, path));
  exemplars(w, 11, p, path);
  writeDouble(w, 12, field(p, 'min'), `${path}.min`);
  writeDouble(w, 13, field(p, 'max'), `${path}.max`);
}

function summaryPoint(w: Writer, p: Json, path: string): void {
  times(w, p, path);
  fixed(w, 4, field(p, 'count'), `${path}.count`);
  writeDouble(w, 5, field(p, 'sum'), `${path}.sum`);
  each(p, 'quantileValues', 'quantile_values', path, (q, qp) => {
    nested(w, 6, () => {
      writeDouble(w, 1, field(q, 'quantile'), `${qp}.quantile`);
      writeDouble(w, 2, field(q, 'value'), `${qp}.value`);
    });
  });
  writeKeyValues(w, 7, field(p, 'attributes'), `${path}.attributes`);
  writeVarint(w, 8, flags(p, path));
}

type PointWriter = (w: Writer, p: Json, path: string) => void;

/** The Metric's data field: [JSON name, field number, point writer, has temporality]. */
const DATA: [string, number, PointWriter, boolean][] = [
  ['gauge', 5, numberPoint, false],
  ['sum', 7, numberPoint, true],
  ['histogram', 9, histogramPoint, true],
  ['exponentialHistogram', 10, expHistogramPoint, true],
  ['summary', 11, summaryPoint, false],
];

function metric(w: Writer, m: Json, path: string): void {
  writeString(w, 1, string(field(m, 'name'), `${path}.name`));
  writeString(w, 2, string(field(m, 'description'), `${path}.description`));
  writeString(w, 3, string(field(m, 'unit'), `${path}.unit`));
  for (const [name, no, point, temporal] of DATA) {
    const snake = name === 'exponentialHistogram' ? 'exponential_histogram' : name;
    const d = object(field(m, name, snake), `${path}.${name}`);
    if (!d) continue;
    const dp = `${path}.${name}`;
    nested(w, no, () => {
      each(d, 'dataPoints', 'data_points', dp, (p, pp) => {
        nested(w, 1, () => {
          point(w, p, pp);
        });
      });
      if (temporal) {
        const t = field(d, 'aggregationTemporality', 'aggregation_temporality');
        writeVarint(w, 2, enumValue(t, TEMPORALITY, `${dp}.aggregationTemporality`));
      }
      const mono = field(d, 'isMonotonic', 'is_monotonic');
      if (mono !== undefined && typeof mono !== 'boolean')
        throw new DecodeError(`${dp}.isMonotonic: expected a boolean`);
      if (mono === true) w.uint32(3 << 3).bool(true);
    });
  }
}

function convert(doc: unknown): Buffer {
  const root = object(doc, 'request') ?? {};
  const w = protobuf.Writer.create();
  each(root, 'resourceMetrics', 'resource_metrics', 'request', (rm, p) => {
    nested(w, 1, () => {
      const resource = object(field(rm, 'resource'), `${p}.resource`);
      if (resource)
        nested(w, 1, () => {
          writeKeyValues(w, 1, field(resource, 'attributes'), `${p}.resource.attributes`);
        });
      each(rm, 'scopeMetrics', 'scope_metrics', p, (sm, q) => {
        nested(w, 2, () => {
          const scope = object(field(sm, 'scope'), `${q}.scope`);
          if (scope)
            nested(w, 1, () => {
              writeString(w, 1, string(field(scope, 'name'), `${q}.scope.name`));
              writeString(w, 2, string(field(scope, 'version'), `${q}.scope.version`));
              writeKeyValues(w, 3, field(scope, 'attributes'), `${q}.scope.attributes`);
            });
          each(sm, 'metrics', 'metrics', q, (m, mp) => {
            nested(w, 2, () => {
              metric(w, m, mp);
            });
          });
          writeString(w, 3, string(field(sm, 'schemaUrl', 'schema_url'), `${q}.schemaUrl`));
        });
      });
      writeString(w, 3, string(field(rm, 'schemaUrl', 'schema_url'), `${p}.schemaUrl`));
    });
  });
  return Buffer.from(w.finish());
}

/** Parses an OTLP/JSON metrics body and returns the equivalent protobuf request. */
export function metricsJsonToProtobuf(body: Buffer): Buffer {
  return jsonBodyToProtobuf(body, convert);
}
