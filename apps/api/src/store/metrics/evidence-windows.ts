import { createTable, engine, onCluster, qualified, type DdlContext } from '../schema/ddl';
import { raw } from '../sql/template';
import { EVIDENCE_SOURCES, sourceRows } from './evidence-sources';

/**
 * The evidence pre-aggregate (docs/metrics.md "How the evidence is fast"): the evidence points
 * of the exporter's gauge, sum and histogram tables per (host, signal, metric, series, kind,
 * 10 s bucket), kept by one materialized view per table as points are inserted, so an evidence
 * read merges per-bucket partial states instead of classifying, joining and grouping every raw
 * point. Any window that is a whole number of buckets is a merge of them: the latest point of a
 * window is the latest of its buckets' latest points, its sum and count the sums of theirs.
 *
 * A view sees only the inserts made after it exists: the migration that creates them fills the
 * table from the points already stored first (and is safe to run again: it empties the table
 * and drops the views before filling it). Points a second writer (a Collector writing the same
 * tables) inserts while the migration runs, between the fill and the views, are missing from the
 * pre-aggregate; evidence over them then reads the raw tables' other points only.
 */

export const WINDOWS_TABLE = 'tailscope_metric_windows';
/** The pre-aggregate's bucket. */
export const WINDOW_BUCKET_NS = 10_000_000_000n;

const viewName = (name: string): string => `${WINDOWS_TABLE}_${name}_mv`;
/** The views' names (a store has the pre-aggregate when the table and all of them exist). */
export const WINDOWS_VIEWS = EVIDENCE_SOURCES.map((s) => viewName(s.name));

function windowsTableDdl(ctx: DdlContext): string {
  return `${createTable(ctx, WINDOWS_TABLE)} (
    host String CODEC(ZSTD(1)),
    signal LowCardinality(String) CODEC(ZSTD(1)),
    metric LowCardinality(String) CODEC(ZSTD(1)),
    series UInt64 CODEC(ZSTD(1)),
    kind UInt8 CODEC(ZSTD(1)),
    bucket Int64 CODEC(Delta, ZSTD(1)),
    last SimpleAggregateFunction(max, Tuple(Int64, Float64)) CODEC(ZSTD(1)),
    total SimpleAggregateFunction(sum, Float64) CODEC(ZSTD(1)),
    points SimpleAggregateFunction(sum, UInt64) CODEC(ZSTD(1))
) ENGINE = ${engine(ctx, 'AggregatingMergeTree')}
PARTITION BY toDate(toDateTime(bucket * 10))
ORDER BY (host, signal, metric, series, kind, bucket)
SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1`;
}

/** A source's points per 10 s bucket as SQL text (DDL binds nothing). */
function sourceText(ctx: DdlContext, i: number): string {
  const src = EVIDENCE_SOURCES[i];
  if (!src) throw new Error(`no evidence source ${String(i)}`);
  const q = sourceRows(src, qualified(ctx, src.table), raw(WINDOW_BUCKET_NS.toString()), raw('1'));
  if (Object.keys(q.params).length > 0) throw new Error('evidence view DDL must bind nothing');
  return q.text;
}

/**
 * The pre-aggregate built (again) from what is stored, then its views: idempotent, so a later
 * change of what is evidence (evidence-sources.ts) is a new migration with these statements.
 */
export function metricWindowsDdl(ctx: DdlContext): string[] {
  const table = qualified(ctx, WINDOWS_TABLE);
  return [
    windowsTableDdl(ctx),
    ...WINDOWS_VIEWS.map((v) => `DROP VIEW IF EXISTS ${qualified(ctx, v)}${onCluster(ctx)}`),
    `TRUNCATE TABLE IF EXISTS ${table}${onCluster(ctx)}`,
    ...EVIDENCE_SOURCES.map((_, i) => `INSERT INTO ${table} ${sourceText(ctx, i)}`),
    ...EVIDENCE_SOURCES.map(
      (s, i) =>
        `CREATE MATERIALIZED VIEW IF NOT EXISTS ${qualified(ctx, viewName(s.name))}${onCluster(ctx)}
TO ${table} AS ${sourceText(ctx, i)}`,
    ),
  ];
}
