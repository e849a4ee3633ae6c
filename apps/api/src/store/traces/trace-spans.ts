import { HOST_KEYS, PEER_SERVICE_KEY, SERVER_ADDRESS_KEY } from '@tailscope/analysis';
import { lit } from '../metrics/evidence-sources';
import {
  checkIdent,
  createTable,
  engine,
  onCluster,
  qualified,
  type DdlContext,
} from '../schema/ddl';

/**
 * The narrow columns of every span (ids, service, name, kind, start, duration, host, peer)
 * ordered by trace id: the spans of a few hundred traces (an incident's sampled requests) read
 * from a few hundred small granules instead of every granule of the hour the spans table holds
 * them in (it is ordered by service and span name before time). Filled by a materialized view
 * on the spans table, and once from it when the migration adds it. Optional: a Collector's table
 * opened read-only lacks it, and reads take the spans table (Accelerators.traceSpans).
 */
export const TRACE_SPANS_TABLE = 'tailscope_trace_spans';
export const TRACE_SPANS_VIEW = 'tailscope_trace_spans_mv';

/** As hostOf (sql/ctes.ts), with the keys as literals (a view's query takes no parameters). */
const HOST = `multiIf(${HOST_KEYS.map(
  (k) => `ResourceAttributes[${lit(k)}] != '', ResourceAttributes[${lit(k)}]`,
).join(', ')}, '')`;

const PEER = `if(SpanAttributes[${lit(PEER_SERVICE_KEY)}] != '', SpanAttributes[${lit(PEER_SERVICE_KEY)}], SpanAttributes[${lit(SERVER_ADDRESS_KEY)}])`;

function select(traces: string): string {
  return `SELECT
    TraceId, SpanId, ParentSpanId, ServiceName, SpanName, SpanKind, Timestamp, Duration,
    ${HOST} AS Host,
    ${PEER} AS Peer
FROM ${traces}`;
}

/**
 * The table, the copy of the spans already stored, then the view that copies each insert from
 * then on (as metricWindowsDdl). Migrations run before the server ingests, so no span is missed; the table is emptied
 * before the copy, so a migration cut off half-way and run again copies no span twice.
 */
export function traceSpansDdl(ctx: DdlContext, tracesTable: string): string[] {
  const traces = qualified(ctx, checkIdent(tracesTable));
  const table = qualified(ctx, TRACE_SPANS_TABLE);
  return [
    `${createTable(ctx, TRACE_SPANS_TABLE)} (
    TraceId String CODEC(ZSTD(1)),
    SpanId String CODEC(ZSTD(1)),
    ParentSpanId String CODEC(ZSTD(1)),
    ServiceName LowCardinality(String) CODEC(ZSTD(1)),
    SpanName LowCardinality(String) CODEC(ZSTD(1)),
    SpanKind LowCardinality(String) CODEC(ZSTD(1)),
    Timestamp DateTime64(9) CODEC(Delta(8), ZSTD(1)),
    Duration UInt64 CODEC(T64, ZSTD(1)),
    Host LowCardinality(String) CODEC(ZSTD(1)),
    Peer LowCardinality(String) CODEC(ZSTD(1))
) ENGINE = ${engine(ctx, 'MergeTree')}
PARTITION BY toDate(Timestamp)
ORDER BY (TraceId)
SETTINGS index_granularity = 1024, ttl_only_drop_parts = 1`,
    `DROP VIEW IF EXISTS ${qualified(ctx, TRACE_SPANS_VIEW)}${onCluster(ctx)}`,
    `TRUNCATE TABLE IF EXISTS ${table}${onCluster(ctx)}`,
    `INSERT INTO ${table} ${select(traces)}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${qualified(ctx, TRACE_SPANS_VIEW)}${onCluster(ctx)}
TO ${table}
AS ${select(traces)}`,
  ];
}
