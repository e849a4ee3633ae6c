import { HOST_KEYS, PEER_SERVICE_KEY, SERVER_ADDRESS_KEY } from '@tailscope/analysis';
import type { Store } from '../engine/client';
import { recordedChunks } from '../fanouts/chunks';
import { lit } from '../metrics/evidence-sources';
import {
  checkIdent,
  createTable,
  engine,
  onCluster,
  qualified,
  type DdlContext,
} from '../schema/ddl';
import { raw, sql } from '../sql/template';
import { TRACES } from './tables';
import { spansPerBucket } from './span-counts';
import { floorDiv } from '../floor-div';

/**
 * The narrow columns of every span (ids, service, name, kind, start, duration, host, peer)
 * ordered by trace id: the spans of a few hundred traces (an incident's sampled requests) read
 * from a few hundred small granules instead of every granule of the hour the spans table holds
 * them in (it is ordered by service and span name before time). Optional: a Collector's table
 * opened read-only lacks it, and reads take the spans table (Accelerators.traceSpans).
 *
 * Filled two ways that never copy a span twice. The view copies each insert of spans that start
 * at or after the copy's boundary: the end of the minute of the newest span stored when the
 * migration ran (none on an empty store: the view copies every span). The spans before it are
 * copied in the background, a minute of span start at a time (trace-spans-backfill.ts), each
 * minute recorded with its span count; a read uses the copy for a time range only when every
 * minute of it before the boundary is recorded with the count the spans table holds now
 * (copiedThrough), and reads the spans table otherwise. The migration itself copies nothing: it
 * used to copy every stored span before the receivers opened (15 s per 10M spans at startup).
 */
export const TRACE_SPANS_TABLE = 'tailscope_trace_spans';
export const TRACE_SPANS_VIEW = 'tailscope_trace_spans_mv';
/** One row: the copy's boundary, epoch ns (no row: the view has copied every span). */
export const TRACE_SPANS_FROM_TABLE = 'tailscope_trace_spans_from';
/** The backfill's records: (minute, spans copied, version), as the chunk records of fanouts/. */
export const TRACE_SPAN_CHUNKS_TABLE = 'tailscope_trace_span_chunks';

/** Every table of the copy: a store has the copy only with all of them (detectAccelerators). */
export const TRACE_SPANS_TABLES = [
  TRACE_SPANS_VIEW,
  TRACE_SPANS_TABLE,
  TRACE_SPANS_FROM_TABLE,
  TRACE_SPAN_CHUNKS_TABLE,
] as const;

/** The backfill's unit and the boundary's rounding: a minute of span start, ns. */
export const BACKFILL_CHUNK_NS = 60_000_000_000n;

/** As hostOf (sql/ctes.ts), with the keys as literals (a view's query takes no parameters). */
const HOST = `multiIf(${HOST_KEYS.map(
  (k) => `ResourceAttributes[${lit(k)}] != '', ResourceAttributes[${lit(k)}]`,
).join(', ')}, '')`;

const PEER = `if(SpanAttributes[${lit(PEER_SERVICE_KEY)}] != '', SpanAttributes[${lit(PEER_SERVICE_KEY)}], SpanAttributes[${lit(SERVER_ADDRESS_KEY)}])`;

/** The copy's columns from the spans table (the view's and the backfill's one definition). */
export const TRACE_SPANS_COLUMNS = `TraceId, SpanId, ParentSpanId, ServiceName, SpanName, SpanKind, Timestamp, Duration,
    ${HOST} AS Host,
    ${PEER} AS Peer`;

/**
 * The tables, the boundary, then the view (as metricWindowsDdl). Migrations run before the
 * server ingests, so the spans table holds nothing newer than `ctx.spansEndNs` while they run:
 * every span is either before the boundary (the backfill's) or inserted after the view exists
 * (the view's). A migration cut off half-way and run again finds the same boundary.
 */
export function traceSpansDdl(ctx: DdlContext, tracesTable: string): string[] {
  const traces = qualified(ctx, checkIdent(tracesTable));
  const from = qualified(ctx, TRACE_SPANS_FROM_TABLE);
  const end = ctx.spansEndNs;
  const boundary = end === undefined ? undefined : ceilChunk(end);
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
    `${createTable(ctx, TRACE_SPANS_FROM_TABLE)} (fromNs Int64) ENGINE = ${engine(ctx, 'MergeTree')} ORDER BY tuple()`,
    `${createTable(ctx, TRACE_SPAN_CHUNKS_TABLE)} (
    chunk Int64, spans UInt64, version UInt64
) ENGINE = ${engine(ctx, 'MergeTree')} ORDER BY (chunk, version)`,
    `DROP VIEW IF EXISTS ${qualified(ctx, TRACE_SPANS_VIEW)}${onCluster(ctx)}`,
    `TRUNCATE TABLE IF EXISTS ${from}${onCluster(ctx)}`,
    ...(boundary === undefined ? [] : [`INSERT INTO ${from} VALUES (${boundary.toString()})`]),
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${qualified(ctx, TRACE_SPANS_VIEW)}${onCluster(ctx)}
TO ${qualified(ctx, TRACE_SPANS_TABLE)}
AS SELECT ${TRACE_SPANS_COLUMNS}
FROM ${traces}${
      boundary === undefined
        ? ''
        : `\nWHERE Timestamp >= fromUnixTimestamp64Nano(toInt64(${boundary.toString()}))`
    }`,
  ];
}

/**
 * Migration 15: the narrow copy's compressed blocks 8-64 KiB instead of the engine's 64 KiB-1 MiB.
 * Its reads are a few hundred traces' spans, a granule or so per trace and part, and each
 * granule read decompressed its columns' whole blocks: 200 sampled traces read ~600 granules
 * and ~20x their rows' bytes. Measured on the 10M incidents store, one analysis thread: 205-297
 * ms for the read before, 75-124 ms after (granularity 256 or 1,024 alike), and 4% more on disk.
 * New parts (inserts, merges) take the setting; parts stored before keep theirs until merged.
 */
export function traceSpansBlocksDdl(ctx: DdlContext): string[] {
  return [
    `ALTER TABLE ${qualified(ctx, TRACE_SPANS_TABLE)}${onCluster(ctx)} MODIFY SETTING min_compress_block_size = 8192, max_compress_block_size = 65536`,
  ];
}

/** The end of the minute holding `t` (a minute's start is its own minute's: t + 1 rounded up). */
const ceilChunk = (t: bigint): bigint => (floorDiv(t, BACKFILL_CHUNK_NS) + 1n) * BACKFILL_CHUNK_NS;

/** The start of the newest span stored, ns; undefined when none (migrate, before version 12). */
export async function spansEndNs(store: Store): Promise<bigint | undefined> {
  const rows = await store.query<{ n: string; t: string }>(sql`
    SELECT toString(count()) AS n, toString(toUnixTimestamp64Nano(max(Timestamp))) AS t FROM ${TRACES}`);
  const r = rows[0];
  return r && r.n !== '0' ? BigInt(r.t) : undefined;
}

/** The copy's boundary of each store (it changes only when migration 12 runs: forgetBoundary). */
const boundaries = new WeakMap<Store, Promise<bigint | null>>();

/** The copy's boundary, ns; null when the view has copied every span (read once per store). */
export function copyBoundary(store: Store): Promise<bigint | null> {
  let b = boundaries.get(store);
  if (!b) {
    b = store
      .query<{ b: string }>(
        sql`SELECT toString(max(fromNs)) AS b, count() AS n FROM ${raw(TRACE_SPANS_FROM_TABLE)} HAVING n > 0`,
      )
      .then((rows) => (rows[0] ? BigInt(rows[0].b) : null));
    // A failed read is not kept: the next one asks again.
    b.catch(() => boundaries.delete(store));
    boundaries.set(store, b);
  }
  return b;
}

export function forgetBoundary(store: Store): void {
  boundaries.delete(store);
}

/** Reads of more minutes before the boundary than this take the spans table (a week). */
const MAX_CHECKED_CHUNKS = 10_080n;

/**
 * Whether the copy holds every span the spans table holds with a start in [lo, hi): always from
 * the boundary on; before it, when every minute there is recorded by the backfill with the
 * span count the spans table holds now (copy and spans table then hold the same spans there:
 * the copy's rows of a minute are one copy of the spans table's, never added to). Two reads
 * of that part only (the records, and the spans table's counts by its sort key's time).
 */
export async function copyCovers(store: Store, loNs: bigint, hiNs: bigint): Promise<boolean> {
  if (!store.accelerators.traceSpans) return false;
  const boundary = await copyBoundary(store);
  if (boundary === null || loNs >= boundary || hiNs <= loNs) return true;
  const end = hiNs < boundary ? hiNs : boundary;
  const first = floorDiv(loNs, BACKFILL_CHUNK_NS);
  const last = floorDiv(end - 1n, BACKFILL_CHUNK_NS);
  if (last - first + 1n > MAX_CHECKED_CHUNKS) return false;
  const chunks: bigint[] = [];
  for (let c = first; c <= last; c++) chunks.push(c);
  const [now, recorded] = await Promise.all([
    spansPerChunk(store, first * BACKFILL_CHUNK_NS, (last + 1n) * BACKFILL_CHUNK_NS),
    recordedChunks(store, chunks, TRACE_SPAN_CHUNKS_TABLE),
  ]);
  return chunks.every((c) => (recorded.get(c)?.spans ?? 0n) === (now.get(c) ?? 0n));
}

/** Spans the spans table holds per minute of start in [lo, hi) (minutes with none absent). */
export async function spansPerChunk(
  store: Store,
  loNs: bigint,
  hiNs: bigint,
): Promise<Map<bigint, bigint>> {
  return spansPerBucket(store, loNs, hiNs, BACKFILL_CHUNK_NS);
}
