import { callBucketOpenDdl, callBucketsDdl, splitBucketsDdl } from '../call-buckets/tables';
import type { Store } from '../engine/client';
import { checkIdent, createTable, engine, onCluster, qualified, type DdlContext } from './ddl';
import {
  chunkDuplicatesDdl,
  fanoutCacheDdl,
  fanoutOpenDdl,
  fanoutStructureDdl,
} from '../fanouts/tables';
import { INGEST_BATCHES_TABLE } from '../writes/batches';
import { metricsTablesDdl } from '../metrics/tables';
import { metricWindowsDdl } from '../metrics/evidence-windows';
import { sql } from '../sql/template';
import {
  forgetBoundary,
  spansEndNs,
  traceSpansBlocksDdl,
  traceSpansDdl,
} from '../traces/trace-spans';
import { typedAttributesDdl } from '../traces/typed-attributes';
import { hasSpanCounts, spanCountsDdl, tracesMergeTree } from '../traces/span-counts';

/**
 * The spans table is the OpenTelemetry Collector clickhouseexporter's `otel_traces`, column for
 * column (names, types, codecs, skipping indexes, PARTITION BY, PRIMARY KEY, ORDER BY), plus its
 * trace-id time-range table and materialized view, so a team whose Collector already writes to
 * ClickHouse can point Tailscope at that table. Tables of our own are prefixed `tailscope_`.
 */
export const TRACES_TABLE = 'otel_traces';

const tracesName = (ctx: DdlContext): string => ctx.tracesTable ?? TRACES_TABLE;

function tracesTable(ctx: DdlContext): string {
  return `${createTable(ctx, tracesName(ctx))} (
    Timestamp DateTime64(9) CODEC(Delta(8), ZSTD(1)),
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
    Duration UInt64 CODEC(T64, ZSTD(1)),
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
    ) CODEC(ZSTD(1)),
    ResourceAttributeItems Array(String) ALIAS arrayMap(kv -> concat(kv.1, '=', kv.2), CAST(ResourceAttributes, 'Array(Tuple(String, String))')),
    SpanAttributeItems Array(String) ALIAS arrayMap(kv -> concat(kv.1, '=', kv.2), CAST(SpanAttributes, 'Array(Tuple(String, String))')),
    INDEX idx_trace_id TraceId TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_res_attr_key mapKeys(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_res_attr_value mapValues(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_span_attr_key mapKeys(SpanAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_span_attr_value mapValues(SpanAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_duration Duration TYPE minmax GRANULARITY 1,
    INDEX idx_lower_span_name lower(SpanName) TYPE tokenbf_v1(32768, 3, 0) GRANULARITY 8
) ENGINE = ${engine(ctx, 'MergeTree')}
PARTITION BY toDate(Timestamp)
PRIMARY KEY (ServiceName, SpanName, toDateTime(Timestamp))
ORDER BY (ServiceName, SpanName, toDateTime(Timestamp), Timestamp)
SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1`;
}

function traceIdTsTable(ctx: DdlContext): string {
  return `${createTable(ctx, `${tracesName(ctx)}_trace_id_ts`)} (
    TraceId String CODEC(ZSTD(1)),
    Start SimpleAggregateFunction(min, DateTime) CODEC(ZSTD(1)),
    End SimpleAggregateFunction(max, DateTime) CODEC(ZSTD(1))
) ENGINE = ${engine(ctx, 'AggregatingMergeTree')}
PARTITION BY toStartOfWeek(Start)
ORDER BY (TraceId)
SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1`;
}

function traceIdTsView(ctx: DdlContext): string {
  return `CREATE MATERIALIZED VIEW IF NOT EXISTS ${qualified(ctx, `${tracesName(ctx)}_trace_id_ts_mv`)}${onCluster(ctx)}
TO ${qualified(ctx, `${tracesName(ctx)}_trace_id_ts`)}
AS SELECT
    TraceId,
    min(Timestamp) as Start,
    max(Timestamp) as End
FROM ${qualified(ctx, tracesName(ctx))}
WHERE TraceId != ''
GROUP BY TraceId`;
}

/**
 * A migration is a list of idempotent DDL statements (`IF NOT EXISTS`), built from the context
 * (database, cluster) by the helpers of ddl.ts. Versions only ever grow: the list is append-only,
 * a new table or change is a new entry at the end, and an applied entry is never edited.
 */
export interface Migration {
  version: number;
  name: string;
  statements: (ctx: DdlContext) => string[];
  /** What the statements need of the stored data, read just before they run (into the context). */
  measure?: (store: Store) => Promise<Partial<DdlContext>>;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'otel_traces with trace-id time-range table and view',
    statements: (ctx) => [tracesTable(ctx), traceIdTsTable(ctx), traceIdTsView(ctx)],
  },
  {
    version: 2,
    name: 'tailscope_typed_attributes',
    statements: (ctx) => [typedAttributesDdl(ctx)],
  },
  {
    version: 3,
    name: 'tailscope_fanouts and tailscope_fanout_chunks (stored fan-outs)',
    statements: (ctx) => fanoutCacheDdl(ctx),
  },
  {
    version: 4,
    name: 'tailscope_ingest_batches: the store-side record of ingest batches',
    statements: (ctx) => [
      `${createTable(ctx, INGEST_BATCHES_TABLE)} (
    Dir String, First UInt64, Last UInt64, State LowCardinality(String), At DateTime64(6)
) ENGINE = ${engine(ctx, 'MergeTree')} ORDER BY (Dir, At) TTL toDateTime(At) + INTERVAL 30 DAY`,
    ],
  },
  {
    version: 5,
    name: 'tailscope_fanouts: concurrency and structure; chunks detected again on calls',
    statements: (ctx) => fanoutStructureDdl(ctx),
  },
  {
    version: 6,
    name: 'tailscope_call_buckets and tailscope_call_bucket_chunks (stored episode series)',
    statements: (ctx) => callBucketsDdl(ctx),
  },
  {
    version: 7,
    name: 'tailscope_chunk_duplicates (extra span copies per stored chunk)',
    statements: (ctx) => chunkDuplicatesDdl(ctx),
  },
  {
    version: 8,
    name: 'tailscope_call_bucket_open (stored episode series of the open chunk, per 10 s bucket)',
    statements: (ctx) => callBucketOpenDdl(ctx),
  },
  {
    version: 9,
    name: 'otel_metrics_gauge, _sum, _histogram, _exponential_histogram, _summary (exporter tables)',
    statements: (ctx) => metricsTablesDdl(ctx),
  },
  {
    version: 10,
    name: 'tailscope_fanout_open (stored fan-outs and edges of the open chunk, per 10 s bucket)',
    statements: (ctx) => fanoutOpenDdl(ctx),
  },
  {
    version: 11,
    name: 'tailscope_metric_windows and its views (evidence metrics per 10 s bucket)',
    statements: (ctx) => metricWindowsDdl(ctx),
  },
  {
    version: 12,
    name: 'tailscope_trace_spans and its view (narrow span columns by trace id)',
    statements: (ctx) => traceSpansDdl(ctx, tracesName(ctx)),
    measure: async (store) => ({ spansEndNs: await spansEndNs(store) }),
  },
  {
    version: 13,
    name: 'tailscope_span_split_buckets (the span split per 10 s bucket); episode series rebuilt',
    statements: (ctx) => splitBucketsDdl(ctx),
  },
  {
    version: 14,
    name: 'tailscope_span_counts: a projection of the spans table (spans per 10 s of start)',
    statements: (ctx) => spanCountsDdl(ctx, tracesName(ctx)),
    measure: async (store) => ({ tracesMergeTree: await tracesMergeTree(store) }),
  },
  {
    version: 15,
    name: 'tailscope_trace_spans: compressed blocks of 8-64 KiB (reads of a few hundred traces)',
    statements: (ctx) => traceSpansBlocksDdl(ctx),
  },
];

export const SCHEMA_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));

const MIGRATIONS_TABLE = 'tailscope_migrations';

/** What runs before any migration: the database (unless `default`) and the migrations table. */
export function bootstrapDdl(ctx: DdlContext): string[] {
  const db = checkIdent(ctx.database);
  return [
    ...(db !== 'default' ? [`CREATE DATABASE IF NOT EXISTS ${db}${onCluster(ctx)}`] : []),
    `${createTable(ctx, MIGRATIONS_TABLE)} (
      version UInt32, name String, appliedAt DateTime64(3)
    ) ENGINE = ${engine(ctx, 'MergeTree')} ORDER BY version`,
  ];
}

/** The context of a store: its database, and its cluster in cluster mode. */
function ddlContext(store: Pick<Store, 'database' | 'cluster' | 'tracesTable'>): DdlContext {
  return { database: store.database, cluster: store.cluster, tracesTable: store.tracesTable };
}

/**
 * Applies the migrations newer than the recorded schema version, recording each one. Every
 * statement is `IF NOT EXISTS`, so a migration interrupted half-way is safe to run again. This
 * is the only place Tailscope creates tables: nothing creates them on the query or ingest path.
 */
export async function migrate(store: Store): Promise<number> {
  if (store.readOnly) throw new Error('a read-only store is never migrated');
  const ctx = ddlContext(store);
  for (const statement of bootstrapDdl(ctx)) await store.client.command({ query: statement });
  const current = await schemaVersion(store);
  for (const m of MIGRATIONS) {
    if (m.version <= current) continue;
    const measured = m.measure ? { ...ctx, ...(await m.measure(store)) } : ctx;
    for (const statement of m.statements(measured))
      await store.client.command({ query: statement });
    await store.command(
      sql`INSERT INTO tailscope_migrations (version, name, appliedAt) VALUES (${m.version}, ${m.name}, now64(3))`,
    );
  }
  // The narrow span copy's boundary is read again (a test migrates a store it dropped it from).
  forgetBoundary(store);
  // Migration 14 skips a spans table that is not a MergeTree: the counts then read the spans.
  store.accelerators.spanCounts = await hasSpanCounts(store);
  return SCHEMA_VERSION;
}

export async function schemaVersion(store: Store): Promise<number> {
  const rows = await store.query<{ v: number }>(
    sql`SELECT toUInt32(max(version)) AS v FROM tailscope_migrations`,
  );
  return rows[0]?.v ?? 0;
}
