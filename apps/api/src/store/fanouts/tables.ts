import { createTable, engine, onCluster, qualified, type DdlContext } from '../schema/ddl';

/**
 * The stored copy of detected fan-outs (fanouts-cache.ts says how it is kept current):
 * `tailscope_fanouts`, one row per fan-out with its calls as arrays, and
 * `tailscope_fanout_chunks`, which chunks are stored, with the span count they were built from.
 */
export const FANOUTS_TABLE = 'tailscope_fanouts';
export const CHUNKS_TABLE = 'tailscope_fanout_chunks';
/** Stored request edges (edges-stored.ts), built with the fan-outs of the same chunks. */
export const EDGES_TABLE = 'tailscope_edges';
/** Extra span copies per stored chunk (edges.ts selectDuplicates), built with its fan-outs. */
export const DUPLICATES_TABLE = 'tailscope_chunk_duplicates';
/**
 * Per 10 s bucket of the open chunk (not yet stored whole), the bucket's signature and extra span
 * copies when its fan-outs and edges were stored, and their version (fanouts/open.ts).
 */
export const FANOUT_OPEN_TABLE = 'tailscope_fanout_open';
/** Chunk length, ns (10 minutes). */
export const CHUNK_NS = 600_000_000_000n;

/**
 * Migration 5 (issue #12): fan-outs are detected on calls now (wrappers, INTERNAL calls,
 * duplicates, structure), so each stored fan-out gains its concurrency and structure, request
 * edges are stored beside them (`tailscope_edges`, one row per request and callee operation),
 * and the rows stored by the old detection are dropped: every chunk is detected again.
 */
export function fanoutStructureDdl(ctx: DdlContext): string[] {
  return [
    `ALTER TABLE ${qualified(ctx, FANOUTS_TABLE)}${onCluster(ctx)} ADD COLUMN IF NOT EXISTS concurrency UInt32, ADD COLUMN IF NOT EXISTS structure LowCardinality(String)`,
    `${createTable(ctx, EDGES_TABLE)} (
    chunk Int64, version UInt64, s0 Int64,
    parentService LowCardinality(String), parentOperation LowCardinality(String),
    leafService LowCardinality(String), leafOperation LowCardinality(String),
    width UInt32, concurrency UInt32, structure LowCardinality(String),
    durationsNs Array(Int64) CODEC(ZSTD(1)), waitsNs Array(Int64) CODEC(ZSTD(1)),
    spanNs Int64, callerDurationNs Int64, wrappedCalls UInt32,
    skewed Array(Tuple(LowCardinality(String), LowCardinality(String), Int64))
  ) ENGINE = ${engine(ctx, 'MergeTree')} PARTITION BY intDiv(chunk, 144) ORDER BY (parentService, leafService, s0)`,
    `TRUNCATE TABLE IF EXISTS ${qualified(ctx, FANOUTS_TABLE)}${onCluster(ctx)}`,
    `TRUNCATE TABLE IF EXISTS ${qualified(ctx, CHUNKS_TABLE)}${onCluster(ctx)}`,
  ];
}

/**
 * Migration 7: duplicates per stored chunk. Counting them over a whole range (rows minus
 * distinct span ids) was half of /api/v1/edges at 10M spans; a chunk's count is kept under the
 * version it was built with, so only a range's ragged ends are counted live.
 */
export function chunkDuplicatesDdl(ctx: DdlContext): string[] {
  return [
    `${createTable(ctx, DUPLICATES_TABLE)} (
    chunk Int64, version UInt64, duplicates UInt64
  ) ENGINE = ${engine(ctx, 'ReplacingMergeTree', 'version')} ORDER BY chunk`,
  ];
}

/** The two tables' DDL (a migration in schema.ts). */
export function fanoutCacheDdl(ctx: DdlContext): string[] {
  return [
    `${createTable(ctx, FANOUTS_TABLE)} (
    chunk Int64, version UInt64, s0 Int64,
    leafService LowCardinality(String), leafOperation LowCardinality(String),
    parentService LowCardinality(String), parentOperation LowCardinality(String),
    fk UInt64, traceId String, parentSpanId String, n UInt32,
    startOffsetNs Array(Int64) CODEC(ZSTD(1)), durationNs Array(Int64) CODEC(ZSTD(1)),
    hosts Array(LowCardinality(String)), modes Array(LowCardinality(String))
  ) ENGINE = ${engine(ctx, 'MergeTree')} PARTITION BY intDiv(chunk, 144) ORDER BY (leafService, leafOperation, s0)`,
    `${createTable(ctx, CHUNKS_TABLE)} (
    chunk Int64, spans UInt64, version UInt64
  ) ENGINE = ${engine(ctx, 'ReplacingMergeTree', 'version')} ORDER BY chunk`,
  ];
}

/** Migration 10: the open chunk's stored fan-outs and edges, per 10 s bucket (fanouts/open.ts). */
export function fanoutOpenDdl(ctx: DdlContext): string[] {
  return [
    `${createTable(ctx, FANOUT_OPEN_TABLE)} (
    bucket Int64, spans UInt64, windowSpans UInt64, duplicates UInt64, version UInt64
  ) ENGINE = ${engine(ctx, 'ReplacingMergeTree', 'version')} ORDER BY bucket`,
  ];
}
