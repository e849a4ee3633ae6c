import type { Store } from '../src/store';

/**
 * The OpenTelemetry Collector clickhouseexporter's traces tables, as the exporter emits them,
 * database, table name, TTL and engine filled in the way its config does (`ttl` 0: no TTL
 * clause; engine MergeTree). Two generations, both found in the field:
 *  - `legacy`: internal/sql_templates/traces_table.sql, traces_id_ts_lookup_table.sql and
 *    traces_id_ts_lookup_mv.sql of earlier releases: codec Delta (not Delta(8)), Duration without
 *    T64, no PRIMARY KEY, ORDER BY without Timestamp, no ALIAS columns, a plain MergeTree
 *    trace-id table of DateTime Start/End ordered by (TraceId, Start);
 *  - `current`: internal/sqltemplates/ (bloom-filter branch, servers without full-text indexes):
 *    Delta(8), T64, PRIMARY KEY and ORDER BY with Timestamp, the ALIAS item columns, and an
 *    AggregatingMergeTree trace-id table of SimpleAggregateFunction(min/max, DateTime).
 * Written out here rather than taken from schema.ts, so the read-only test reads tables
 * Tailscope did not make.
 */
export type ExporterSchema = 'legacy' | 'current';

export function exporterTracesDdl(
  db: string,
  table: string,
  schema: ExporterSchema = 'legacy',
  ttlDays = 0,
): string[] {
  const ttl = (col: string): string =>
    ttlDays > 0 ? `TTL toDateTime(${col}) + toIntervalDay(${ttlDays})` : '';
  const current = schema === 'current';
  return [
    `CREATE DATABASE IF NOT EXISTS "${db}"`,
    `CREATE TABLE IF NOT EXISTS "${db}"."${table}"  (
    Timestamp DateTime64(9) CODEC(${current ? 'Delta(8)' : 'Delta'}, ZSTD(1)),
    TraceId String CODEC(ZSTD(1)),
    SpanId String CODEC(ZSTD(1)),
    ParentSpanId String CODEC(ZSTD(1)),
    TraceState String CODEC(ZSTD(1)),
    SpanName LowCardinality(String) CODEC(ZSTD(1)),
    SpanKind LowCardinality(String) CODEC(ZSTD(1)),
    ServiceName LowCardinality(String) CODEC(ZSTD(1)),
    ResourceAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    ScopeName String CODEC(ZSTD(1)),
    ScopeVersion String CODEC(ZSTD(1)),
    SpanAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    Duration UInt64 CODEC(${current ? 'T64, ' : ''}ZSTD(1)),
    StatusCode LowCardinality(String) CODEC(ZSTD(1)),
    StatusMessage String CODEC(ZSTD(1)),
    Events Nested (
        Timestamp DateTime64(9),
        Name LowCardinality(String),
        Attributes Map(LowCardinality(String), String)
    ) CODEC(ZSTD(1)),
    Links Nested (
        TraceId String,
        SpanId String,
        TraceState String,
        Attributes Map(LowCardinality(String), String)
    ) CODEC(ZSTD(1)),${
      current
        ? `
    ResourceAttributeItems Array(String) ALIAS arrayMap(kv -> concat(kv.1, '=', kv.2), CAST(ResourceAttributes, 'Array(Tuple(String, String))')),
    SpanAttributeItems Array(String) ALIAS arrayMap(kv -> concat(kv.1, '=', kv.2), CAST(SpanAttributes, 'Array(Tuple(String, String))')),`
        : ''
    }
    INDEX idx_trace_id TraceId TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_res_attr_key mapKeys(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_res_attr_value mapValues(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_span_attr_key mapKeys(SpanAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_span_attr_value mapValues(SpanAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_duration Duration TYPE minmax GRANULARITY 1${
      current
        ? `,
    INDEX idx_lower_span_name lower(SpanName) TYPE tokenbf_v1(32768, 3, 0) GRANULARITY 8`
        : ''
    }
) ENGINE = MergeTree()
PARTITION BY toDate(Timestamp)
${
  current
    ? `PRIMARY KEY (ServiceName, SpanName, toDateTime(Timestamp))
ORDER BY (ServiceName, SpanName, toDateTime(Timestamp), Timestamp)`
    : 'ORDER BY (ServiceName, SpanName, toDateTime(Timestamp))'
}
${ttl('Timestamp')}
SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1`,
    current
      ? `CREATE TABLE IF NOT EXISTS "${db}"."${table}_trace_id_ts"  (
    TraceId String CODEC(ZSTD(1)),
    Start SimpleAggregateFunction(min, DateTime) CODEC(ZSTD(1)),
    End SimpleAggregateFunction(max, DateTime) CODEC(ZSTD(1))
) ENGINE = AggregatingMergeTree()
PARTITION BY toStartOfWeek(Start)
ORDER BY (TraceId)
${ttl('Start')}
SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1`
      : `CREATE TABLE IF NOT EXISTS "${db}"."${table}_trace_id_ts"  (
    TraceId String CODEC(ZSTD(1)),
    Start DateTime CODEC(Delta, ZSTD(1)),
    End DateTime CODEC(Delta, ZSTD(1)),
    INDEX idx_trace_id TraceId TYPE bloom_filter(0.01) GRANULARITY 1
) ENGINE = MergeTree()
PARTITION BY toDate(Start)
ORDER BY (TraceId, Start)
${ttl('Start')}
SETTINGS index_granularity=8192, ttl_only_drop_parts = 1`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS "${db}"."${table}_trace_id_ts_mv"
TO "${db}"."${table}_trace_id_ts"
AS SELECT
    TraceId,
    min(Timestamp) as Start,
    max(Timestamp) as End
FROM "${db}"."${table}"
WHERE TraceId != ''
GROUP BY TraceId`,
  ];
}

// OTLP/JSON as tracegen and the SDKs send it (the subset the mapping reads).
interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  traceState?: string;
  name: string;
  kind?: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: KeyValue[];
  events?: { timeUnixNano: string; name: string; attributes?: KeyValue[] }[];
  links?: { traceId: string; spanId: string; traceState?: string; attributes?: KeyValue[] }[];
  status?: { code?: number; message?: string };
}
export interface OtlpJson {
  resourceSpans: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans: { scope?: { name?: string; version?: string }; spans: OtlpSpan[] }[];
  }[];
}

/** pcommon.Value.AsString for the scalar kinds (what the exporter's attributesToMap stores). */
function asString(v: AnyValue): string {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return String(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue ? 'true' : 'false';
  if (v.doubleValue !== undefined) return String(v.doubleValue);
  return '';
}

const toMap = (kvs: KeyValue[] | undefined): Record<string, string> =>
  Object.fromEntries((kvs ?? []).map((kv) => [kv.key, asString(kv.value)]));

/** traceutil.SpanKindStr and StatusCodeStr: the strings the exporter writes. */
const KINDS = ['Unspecified', 'Internal', 'Server', 'Client', 'Producer', 'Consumer'];
const STATUS = ['Unset', 'Ok', 'Error'];

/** Epoch ns as DateTime64(9) text the engine parses (seconds.nanoseconds). */
function time(ns: string): string {
  const n = BigInt(ns);
  return `${n / 1_000_000_000n}.${(n % 1_000_000_000n).toString().padStart(9, '0')}`;
}

/**
 * The rows the exporter's pushTraceData writes for one OTLP request, column for column of its
 * INSERT: start time, hex ids, SpanKind and StatusCode as strings, ServiceName from the
 * resource's service.name, every attribute value as its string, Duration = end - start in ns,
 * events and links as the Nested columns' parallel arrays.
 */
export function exporterRows(req: OtlpJson): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (const rs of req.resourceSpans) {
    const resource = toMap(rs.resource?.attributes);
    for (const ss of rs.scopeSpans) {
      for (const s of ss.spans) {
        const events = s.events ?? [];
        const links = s.links ?? [];
        rows.push({
          Timestamp: time(s.startTimeUnixNano),
          TraceId: s.traceId,
          SpanId: s.spanId,
          ParentSpanId: s.parentSpanId ?? '',
          TraceState: s.traceState ?? '',
          SpanName: s.name,
          SpanKind: KINDS[s.kind ?? 0] ?? 'Unspecified',
          ServiceName: resource['service.name'] ?? '',
          ResourceAttributes: resource,
          ScopeName: ss.scope?.name ?? '',
          ScopeVersion: ss.scope?.version ?? '',
          SpanAttributes: toMap(s.attributes),
          Duration: (BigInt(s.endTimeUnixNano) - BigInt(s.startTimeUnixNano)).toString(),
          StatusCode: STATUS[s.status?.code ?? 0] ?? 'Unset',
          StatusMessage: s.status?.message ?? '',
          'Events.Timestamp': events.map((e) => time(e.timeUnixNano)),
          'Events.Name': events.map((e) => e.name),
          'Events.Attributes': events.map((e) => toMap(e.attributes)),
          'Links.TraceId': links.map((l) => l.traceId),
          'Links.SpanId': links.map((l) => l.spanId),
          'Links.TraceState': links.map((l) => l.traceState ?? ''),
          'Links.Attributes': links.map((l) => toMap(l.attributes)),
        });
      }
    }
  }
  return rows;
}

/** Writes one OTLP request into the exporter's table as the exporter would (one insert). */
export async function exportToTable(
  store: Store,
  db: string,
  table: string,
  req: OtlpJson,
): Promise<number> {
  const rows = exporterRows(req);
  await store.client.insert({ table: `${db}.${table}`, format: 'JSONEachRow', values: rows });
  return rows.length;
}
