import { EDGE_SLACK_NS, EPISODE_FINE_BINS_PER_OCTAVE } from '@tailscope/analysis';
import { CALL_BUCKETS_TABLE, CALL_BUCKET_NS } from '../call-buckets/tables';
import { callCtes } from '../sql/calls';
import { CHUNK_NS } from '../fanouts/tables';
import { inWindow, ns, withCtes, type Cte } from '../fanouts/sql';
import type { Coverage } from '../fanouts/stored';
import { adjustedCountSql } from '../traces/sampling';
import { join, param, raw, sql, type Sql } from '../sql/template';
import { TRACES } from '../traces/tables';

/**
 * SQL of the episode series (DESIGN.md "Definitions": Episode), pure builders (snapshotted in
 * episodes.test.ts), over the shared calls of calls-sql.ts (wrappers skipped, duplicates counted
 * once, a call answered by several SERVER spans is one call timed by its client). A call
 * belongs to the window (or 10 s bucket) of its start. Two kinds of series:
 * - `callee`: (callee service, callee host) of every call;
 * - `edge`: (caller service, caller operation) -> (callee service, callee operation), for calls
 *   whose caller span is known.
 * Calls are timed on the caller's clock (the call as the caller saw it). Each (series, window)
 * or (series, bucket) row carries a fine log-latency histogram (`@tailscope/analysis`
 * episode-histogram.ts): bins, stored calls per bin, calls weighted by the sampling adjusted
 * count per bin. Histograms add, so windows built from stored 10 s buckets (the table of
 * call-buckets-tables.ts) and from live rows merge exactly. episodes-read.ts runs them.
 */

export interface EpisodeScope {
  fromNs: bigint;
  toNs: bigint;
  windowMs: number;
  /** Only series whose callee is this service. */
  service?: string | undefined;
  /**
   * The range was clamped to the stored spans at its end: no span starts at or after toNs, so
   * the stored bucket around it can be read whole. (Its start needs no flag: episodes read the
   * bucket holding it whole, index.ts judgedFromNs.)
   */
  clampedTo?: boolean | undefined;
}

export type SeriesKind = 'callee' | 'edge';

/**
 * Where episodes start judging a range that starts at `fromNs` (docs/analysis.md "Windows"):
 * the start of the 10 s bucket holding it, so that bucket is read whole (from the stored
 * buckets, index.ts). Windows that are multiples of 10 s are epoch-aligned, so this only adds
 * the calls of that bucket before `fromNs` to the range's first window; with a window that is
 * no multiple (only asked of the store directly), the range starts where asked. Call and
 * request-root series alike (roots.ts).
 */
export function judgedFromNs(fromNs: bigint, windowMs: number): bigint {
  const windowNs = BigInt(Math.round(windowMs * 1e6));
  if (windowNs % CALL_BUCKET_NS !== 0n) return fromNs;
  const q = fromNs / CALL_BUCKET_NS;
  return (fromNs % CALL_BUCKET_NS < 0n ? q - 1n : q) * CALL_BUCKET_NS;
}

/** The identity columns of a series, in GROUP BY order. */
const SERIES_COLUMNS = raw('kind, service, host, parentService, parentOperation, operation');

/** The CTEs ending in `series`: one row per (call, series) with startNs, latencyNs, weight. */
function seriesCtes(s: Pick<EpisodeScope, 'fromNs' | 'toNs' | 'service'>): Cte[] {
  const service = s.service !== undefined ? sql` AND c.leafService = ${s.service}` : raw('');
  return [
    ...callCtes({ fromNs: s.fromNs, toNs: s.toNs }),
    {
      // Only spans that carry a TraceState: unsampled data builds an empty table here.
      name: 'ep_weights',
      body: sql`
  SELECT cityHash64(TraceId, SpanId) AS key, any(${adjustedCountSql()}) AS weight
  FROM ${TRACES}
  WHERE ${inWindow(s.fromNs - EDGE_SLACK_NS, s.toNs + EDGE_SLACK_NS)} AND TraceState != ''
  GROUP BY key`,
    },
    {
      name: 'ep_calls',
      body: sql`
  SELECT c.leafService AS calleeService, c.leafOperation AS calleeOperation, c.host AS calleeHost,
    c.callerService AS callerService, c.callerOperation AS callerOperation,
    c.startNs AS startNs, c.durationNs AS latencyNs, if(w.weight > 0, w.weight, 1.0) AS weight
  FROM calls AS c
  LEFT JOIN ep_weights AS w ON cityHash64(c.traceId, c.spanId) = w.key
  WHERE c.startNs >= ${ns(s.fromNs)} AND c.startNs < ${ns(s.toNs)}${service}`,
    },
    {
      // Each call into both of its series in one pass (arrayJoin): a UNION ALL of two reads
      // of ep_calls would run the whole calls chain twice (a CTE is inlined where it is used).
      name: 'series',
      body: sql`
  SELECT arrayJoin(if(callerService != '', ['callee', 'edge'], ['callee'])) AS kind,
    calleeService AS service,
    if(kind = 'callee', calleeHost, '') AS host,
    if(kind = 'edge', callerService, '') AS parentService,
    if(kind = 'edge', callerOperation, '') AS parentOperation,
    if(kind = 'edge', calleeOperation, '') AS operation,
    startNs, latencyNs, weight
  FROM ep_calls`,
    },
  ];
}

/**
 * The fine histogram of rows with `latencyNs` and `weight`: h = (bins, stored calls, weighted
 * calls). Also the request roots' (roots.ts).
 */
export const HISTOGRAM = sql`sumMap([toUInt16(floor(log2(greatest(latencyNs, 1)) * ${param(EPISODE_FINE_BINS_PER_OCTAVE, 'UInt8')}))], [toUInt64(1)], [weight])`;

/** Per (series, window) histograms computed from spans, over [from, to). */
export function liveEpisodeWindowsSql(s: EpisodeScope): Sql {
  const windowNs = BigInt(Math.round(s.windowMs * 1e6));
  return withCtes(
    seriesCtes(s),
    sql`
SELECT ${SERIES_COLUMNS},
  toInt64(intDiv(startNs, ${ns(windowNs)})) AS window,
  (${HISTOGRAM} AS h).1 AS bins, h.2 AS binCalls, h.3 AS binWeights
FROM series
GROUP BY ${SERIES_COLUMNS}, window
SETTINGS join_algorithm = 'parallel_hash'`,
  );
}

/**
 * Computes the series of [from, to) (whole chunks) per 10 s bucket and stores them under
 * `version` (call-buckets-cache.ts decides which chunks).
 */
export function storeCallBucketsSql(scope: { fromNs: bigint; toNs: bigint }, version: bigint): Sql {
  return sql`
INSERT INTO ${raw(CALL_BUCKETS_TABLE)} (chunk, version, bucket, ${SERIES_COLUMNS},
  calls, weightedCalls, bins, binCalls, binWeights)
${withCtes(
  seriesCtes(scope),
  sql`SELECT
  intDiv(bucket, ${param((CHUNK_NS / CALL_BUCKET_NS).toString(), 'Int64')}) AS chunk,
  ${param(version.toString(), 'UInt64')} AS version,
  toInt64(intDiv(startNs, ${ns(CALL_BUCKET_NS)})) AS bucket, ${SERIES_COLUMNS},
  count() AS calls, sum(weight) AS weightedCalls,
  (${HISTOGRAM} AS h).1 AS bins, h.2 AS binCalls, h.3 AS binWeights
FROM series
GROUP BY ${SERIES_COLUMNS}, bucket
SETTINGS join_algorithm = 'parallel_hash'`,
)}`;
}

/**
 * The stored rows a coverage points at: whole chunks by (chunk, version), open buckets
 * (call-buckets/open.ts) by (bucket, version). Also the span split's (split-sql.ts), built
 * under the same versions.
 */
export function storedRowsFilter(cov: Coverage & { buckets?: [string, string][] }): Sql {
  const pairs = (ps: [string, string][], column: string): Sql =>
    sql`has(arrayZip(arrayMap(x -> toInt64(x), ${ps.map((c) => c[0])}), arrayMap(x -> toUInt64(x), ${ps.map((c) => c[1])})), (${raw(column)}, version))`;
  const open = cov.buckets ?? [];
  return open.length === 0
    ? pairs(cov.chunks, 'chunk')
    : sql`(${pairs(cov.chunks, 'chunk')} OR ${pairs(open, 'bucket')})`;
}

/** Windows of at most this many stored buckets are read unmerged (storedEpisodeWindowsSql). */
const RAW_WINDOW_BUCKETS = 2n;

/**
 * Per (series, window) histograms merged from the stored buckets of the covered chunks'
 * current versions and of the covered open buckets, over [from, to) (both multiples of 10 s; the window a multiple of 10 s).
 */
export function storedEpisodeWindowsSql(
  s: EpisodeScope,
  cov: Coverage & { buckets?: [string, string][] },
): Sql {
  const windowBuckets = BigInt(Math.round(s.windowMs * 1e6)) / CALL_BUCKET_NS;
  const filters = [
    sql`bucket >= ${ns(s.fromNs / CALL_BUCKET_NS)} AND bucket < ${ns(s.toNs / CALL_BUCKET_NS)}`,
    storedRowsFilter(cov),
    ...(s.service !== undefined ? [sql`service = ${s.service}`] : []),
  ];
  // A window of one or two buckets (ranges up to about an hour) is merged by the caller from
  // the stored rows as they are: the engine's sumMap merged them at ~400 ns a bin, 170 ms of
  // the 10M incidents answer's last hour, against ~60 ms to send the rows unmerged.
  if (windowBuckets <= RAW_WINDOW_BUCKETS)
    return sql`
SELECT ${SERIES_COLUMNS}, toInt64(intDiv(bucket, ${ns(windowBuckets)})) AS window,
  bins, binCalls, binWeights
FROM ${raw(CALL_BUCKETS_TABLE)}
WHERE ${join(filters, '\n  AND ')}`;
  // The merged histogram is split in an outer SELECT: its parts take the stored columns' names.
  return sql`
SELECT ${SERIES_COLUMNS}, window, h.1 AS bins, h.2 AS binCalls, h.3 AS binWeights
FROM (
  SELECT ${SERIES_COLUMNS},
    toInt64(intDiv(bucket, ${ns(windowBuckets)})) AS window,
    sumMap(bins, binCalls, binWeights) AS h
  FROM ${raw(CALL_BUCKETS_TABLE)}
  WHERE ${join(filters, '\n    AND ')}
  GROUP BY ${SERIES_COLUMNS}, window
)`;
}
