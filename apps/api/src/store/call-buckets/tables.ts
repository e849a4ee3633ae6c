import { createTable, engine, onCluster, qualified, type DdlContext } from '../schema/ddl';

/**
 * The stored episode series (call-buckets-cache.ts says how it is kept current):
 * `tailscope_call_buckets`, per closed 10-minute chunk and version, per series and 10 s bucket of
 * call start, the calls with a fine log-latency histogram (stored calls and sampling-weighted
 * calls per bin); `tailscope_call_bucket_chunks`, which chunks are stored, with the span count
 * they were built from.
 */
export const CALL_BUCKETS_TABLE = 'tailscope_call_buckets';
export const CALL_BUCKET_CHUNKS_TABLE = 'tailscope_call_bucket_chunks';
/**
 * Per 10 s bucket of a chunk not yet stored whole (the open chunk of a running server), the
 * bucket's signature when it was stored and the version of its rows in CALL_BUCKETS_TABLE
 * (call-buckets-open.ts).
 */
export const CALL_BUCKET_OPEN_TABLE = 'tailscope_call_bucket_open';
/** Bucket length, ns (10 s): every episode window that is a multiple of it reads the table. */
export const CALL_BUCKET_NS = 10_000_000_000n;

/** The two tables' DDL (a migration in schema.ts). */
export function callBucketsDdl(ctx: DdlContext): string[] {
  return [
    `${createTable(ctx, CALL_BUCKETS_TABLE)} (
    chunk Int64, version UInt64, bucket Int64,
    kind LowCardinality(String), service LowCardinality(String), host LowCardinality(String),
    parentService LowCardinality(String), parentOperation LowCardinality(String),
    operation LowCardinality(String),
    calls UInt64, weightedCalls Float64,
    bins Array(UInt16) CODEC(ZSTD(1)), binCalls Array(UInt64) CODEC(ZSTD(1)),
    binWeights Array(Float64) CODEC(ZSTD(1))
  ) ENGINE = ${engine(ctx, 'MergeTree')} PARTITION BY intDiv(chunk, 144) ORDER BY (service, kind, bucket)`,
    `${createTable(ctx, CALL_BUCKET_CHUNKS_TABLE)} (
    chunk Int64, spans UInt64, version UInt64
  ) ENGINE = ${engine(ctx, 'ReplacingMergeTree', 'version')} ORDER BY chunk`,
  ];
}

/** The open-bucket records' DDL (a migration in schema.ts). */
export function callBucketOpenDdl(ctx: DdlContext): string[] {
  return [
    `${createTable(ctx, CALL_BUCKET_OPEN_TABLE)} (
    bucket Int64, spans UInt64, windowSpans UInt64, version UInt64
  ) ENGINE = ${engine(ctx, 'ReplacingMergeTree', 'version')} ORDER BY bucket`,
  ];
}

/**
 * The span split per 10 s bucket (episodes/split-sql.ts), built with the episode series of the
 * same chunk or open bucket under the same version: per (callee service, host, bucket of the
 * server span's start) the calls and three sums, and per bucket built one mark (service and
 * host '', calls 0), so a reader knows a version's buckets were built with their split.
 */
export const SPLIT_BUCKETS_TABLE = 'tailscope_span_split_buckets';

/**
 * Migration 13: the span split's table. Every stored chunk and open bucket is forgotten, so the
 * materializers build them again with their split (episodes answer live, slower, until they
 * have; a version built without it is read live, split-sql.ts).
 */
export function splitBucketsDdl(ctx: DdlContext): string[] {
  return [
    `${createTable(ctx, SPLIT_BUCKETS_TABLE)} (
    chunk Int64, version UInt64, bucket Int64,
    service LowCardinality(String), host LowCardinality(String),
    calls UInt64, clientNs Int64, serverNs Int64, outsideNs Int64
  ) ENGINE = ${engine(ctx, 'MergeTree')} PARTITION BY intDiv(chunk, 144) ORDER BY (service, host, bucket)`,
    ...[CALL_BUCKET_CHUNKS_TABLE, CALL_BUCKET_OPEN_TABLE, CALL_BUCKETS_TABLE].map(
      (t) => `TRUNCATE TABLE IF EXISTS ${qualified(ctx, t)}${onCluster(ctx)}`,
    ),
  ];
}
