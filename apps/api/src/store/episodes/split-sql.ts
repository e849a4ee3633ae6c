import { CLIENT_KINDS, SERVER_KINDS } from '@tailscope/analysis';
import { CALL_BUCKET_NS, SPLIT_BUCKETS_TABLE } from '../call-buckets/tables';
import { CHUNK_NS } from '../fanouts/tables';
import { hostOf, inWindow, ns, withCtes, type Cte } from '../sql/ctes';
import { param, raw, sql, type Sql } from '../sql/template';
import { TRACES } from '../traces/tables';
import { storedRowsFilter } from './sql';

/**
 * SQL of the span split (spans.ts says what it is and how it is read), pure builders: live
 * from the spans, stored per 10 s bucket, read back from the stored buckets.
 */

/** What selectSpanSplit reads: [from, to), by window, of these services and hosts. */
export interface SpanSplitQuery {
  fromNs: bigint;
  toNs: bigint;
  windowNs: bigint;
  services: readonly string[];
  hosts: readonly string[];
  maxRows: number;
}

/** One (service, host, window) of the split, as selectSpanSplit returns it. */
export interface SpanSplitRow {
  service: string;
  host: string;
  window: number;
  calls: number;
  clientMs: number;
  serverMs: number;
  outsideMs: number;
}

/** The widest range read (a day) and the most services and hosts asked. */
export const MAX_SPLIT_RANGE_NS = 86_400n * 1_000_000_000n;
export const MAX_SPLIT_NAMES = 1000;
/**
 * How far from its server span's start a client span may start (before it: the client's own
 * wait and its clock's skew; after it: skew). At most the edge margin, so a chunk's records
 * keep its stored split current (module comment).
 */
export const CLIENT_LEAD_NS = 60_000_000_000n;

type Num = number | string;
/** A (service, host, window) row as the engine returns it: 64-bit sums as text. */
export interface SumRow {
  service: string;
  host: string;
  window: Num;
  calls: Num;
  clientNs: Num;
  serverNs: Num;
  outsideNs: Num;
}

/**
 * The CTEs ending in `split_calls`: one row per server span starting in [from, to) (of the
 * services and hosts, when given) with service, host, startNs and its clientNs, serverNs,
 * outsideNs.
 */
function splitCtes(s: {
  fromNs: bigint;
  toNs: bigint;
  services?: readonly string[];
  hosts?: readonly string[];
}): Cte[] {
  const names =
    s.services && s.hosts
      ? sql` AND ServiceName IN ${param([...s.services], 'Array(String)')}
    AND host IN ${param([...s.hosts], 'Array(String)')}`
      : raw('');
  return [
    {
      name: 'servers',
      body: sql`
  SELECT TraceId, ParentSpanId, CAST(ServiceName, 'String') AS service,
    ${hostOf('ResourceAttributes')} AS host,
    toUnixTimestamp64Nano(Timestamp) AS startNs, toInt64(Duration) AS durationNs
  FROM ${TRACES}
  WHERE ${inWindow(s.fromNs, s.toNs)} AND SpanKind IN ${param([...SERVER_KINDS], 'Array(String)')}
    AND ParentSpanId != ''${names}`,
    },
    {
      name: 'split_calls',
      body: sql`
  SELECT s.service AS service, s.host AS host, s.startNs AS startNs,
    c.SpanId != '' AND c.startNs >= s.startNs - ${ns(CLIENT_LEAD_NS)}
      AND c.startNs < s.startNs + ${ns(CLIENT_LEAD_NS)} AS joined,
    if(joined, c.durationNs, s.durationNs) AS clientNs, s.durationNs AS serverNs,
    if(joined, greatest(c.durationNs - s.durationNs, 0), 0) AS outsideNs
  FROM servers AS s
  ANY LEFT JOIN (
    SELECT TraceId, SpanId, toInt64(Duration) AS durationNs, toUnixTimestamp64Nano(Timestamp) AS startNs
    FROM ${TRACES}
    WHERE ${inWindow(s.fromNs - CLIENT_LEAD_NS, s.toNs + CLIENT_LEAD_NS)}
      AND SpanKind IN ${param([...CLIENT_KINDS], 'Array(String)')}
      AND cityHash64(TraceId, SpanId) IN (SELECT cityHash64(TraceId, ParentSpanId) FROM servers)
  ) AS c ON s.TraceId = c.TraceId AND s.ParentSpanId = c.SpanId`,
    },
  ];
}

const SUMS = raw(
  'toUInt64(count()) AS calls, sum(clientNs) AS clientNs, sum(serverNs) AS serverNs, sum(outsideNs) AS outsideNs',
);

/** The split per (service, host, window) computed from spans over [from, to). Pure builder. */
export function liveSpanSplitSql(q: SpanSplitQuery): Sql {
  return withCtes(
    splitCtes(q),
    sql`
SELECT service, host, toInt64(intDiv(startNs, ${ns(q.windowNs)})) AS window, ${SUMS}
FROM split_calls
GROUP BY service, host, window
ORDER BY service, host, window
LIMIT ${param(q.maxRows, 'UInt64')}
SETTINGS join_algorithm = 'parallel_hash'`,
  );
}

/**
 * Stores the split of [from, to) (whole chunks or buckets) per 10 s bucket under `version`,
 * with one mark per bucket (service and host '', calls 0: a (service, host) row has calls).
 */
export function storeSpanSplitSql(scope: { fromNs: bigint; toNs: bigint }, version: bigint): Sql {
  const B = CALL_BUCKET_NS;
  const perChunk = param((CHUNK_NS / B).toString(), 'Int64');
  const v = param(version.toString(), 'UInt64');
  return sql`
INSERT INTO ${raw(SPLIT_BUCKETS_TABLE)} (chunk, version, bucket, service, host, calls, clientNs,
  serverNs, outsideNs)
${withCtes(
  splitCtes(scope),
  sql`SELECT intDiv(bucket, ${perChunk}) AS chunk, ${v} AS version,
  toInt64(intDiv(startNs, ${ns(B)})) AS bucket, service, host,
  count() AS calls, sum(clientNs) AS clientNs, sum(serverNs) AS serverNs, sum(outsideNs) AS outsideNs
FROM split_calls
GROUP BY service, host, bucket
UNION ALL
SELECT intDiv(bucket, ${perChunk}) AS chunk, ${v} AS version, bucket, '' AS service, '' AS host,
  0 AS calls, 0 AS clientNs, 0 AS serverNs, 0 AS outsideNs
FROM (SELECT arrayJoin(range(${ns(scope.fromNs / B)}, ${ns(scope.toNs / B)})) AS bucket)
SETTINGS join_algorithm = 'parallel_hash'`,
)}`;
}

/** The stored split per (service, host, window) of [from, to) (multiples of 10 s). */
export function storedSpanSplitSql(
  q: SpanSplitQuery,
  cov: Parameters<typeof storedRowsFilter>[0],
): Sql {
  // The rows are picked in a subquery: the outer names (calls, service) are its aggregates.
  return sql`
SELECT CAST(service, 'String') AS service, CAST(host, 'String') AS host,
  toInt64(intDiv(bucket, ${ns(q.windowNs / CALL_BUCKET_NS)})) AS window,
  toUInt64(sum(calls)) AS calls, sum(clientNs) AS clientNs, sum(serverNs) AS serverNs,
  sum(outsideNs) AS outsideNs
FROM (
  SELECT * FROM ${raw(SPLIT_BUCKETS_TABLE)}
  WHERE ${storedSplitFilter(q, cov)}
    AND service IN ${param([...q.services], 'Array(String)')}
    AND host IN ${param([...q.hosts], 'Array(String)')} AND calls > 0
)
GROUP BY service, host, window
ORDER BY service, host, window
LIMIT ${param(q.maxRows, 'UInt64')}`;
}

/**
 * The marks of the stored buckets of [from, to) a coverage points at: one per bucket whose
 * version was built with its split (a version built before migration 13, or by a Tailscope
 * without it, has none, and is read live).
 */
export function storedSplitMarksSql(
  q: Pick<SpanSplitQuery, 'fromNs' | 'toNs'>,
  cov: Parameters<typeof storedRowsFilter>[0],
): Sql {
  return sql`
SELECT toString(count()) AS n FROM ${raw(SPLIT_BUCKETS_TABLE)}
WHERE service = '' AND host = '' AND calls = 0 AND ${storedSplitFilter(q, cov)}`;
}

function storedSplitFilter(
  q: Pick<SpanSplitQuery, 'fromNs' | 'toNs'>,
  cov: Parameters<typeof storedRowsFilter>[0],
): Sql {
  return sql`bucket >= ${ns(q.fromNs / CALL_BUCKET_NS)} AND bucket < ${ns(q.toNs / CALL_BUCKET_NS)}
  AND ${storedRowsFilter(cov)}`;
}
