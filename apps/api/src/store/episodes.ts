import {
  CLIENT_KINDS,
  EDGE_SLACK_NS,
  EPISODE_BUCKETS_PER_OCTAVE,
  SERVER_KINDS,
  UNKNOWN_HOST,
} from '@tailscope/analysis';
import type { Store } from './client';
import { hostOf, inWindow, ns, withCtes } from './fanouts-sql';
import { adjustedCountSql } from './sampling';
import { join, param, raw, sql, type Sql } from './sql';

/**
 * Per-window aggregates of the episode series (DESIGN.md "Definitions": Episode), over
 * `otel_traces`. A call here, until the shared calls definition lands, is a span entering a
 * service: a SERVER span, or any span whose parent span belongs to another service (HotROD's
 * INTERNAL `mysql` and `redis` spans). Two kinds of series:
 * - `callee`: (service, host) of the entered span, timed by the span itself;
 * - `edge`: (caller service, caller operation) -> (callee service, callee operation), the
 *   caller being the parent span; timed by the parent when it is a CLIENT span (the call as
 *   the caller saw it), else by the entered span.
 * Each (series, window) row carries stored calls, calls weighted by the sampling adjusted
 * count, weighted p50/p99 and a log-latency histogram for the rank test in
 * `@tailscope/analysis` `detectEpisodes`.
 */

export interface EpisodeScope {
  fromNs: bigint;
  toNs: bigint;
  windowMs: number;
  /** Only series whose callee is this service. */
  service?: string | undefined;
}

export type SeriesKind = 'callee' | 'edge';

/** One (series, window) aggregate. */
export interface EpisodeWindowRow {
  kind: SeriesKind;
  service: string;
  /** '' for edge series. */
  host: string;
  parentService: string;
  parentOperation: string;
  operation: string;
  /** Window index: floor(start ms / windowMs). */
  window: number;
  calls: number;
  weightedCalls: number;
  p50Ms: number;
  p99Ms: number;
  buckets: number[];
  counts: number[];
}

const kindIn = (list: readonly string[], col: string): Sql =>
  sql`${raw(col)} IN (${join(
    list.map((k) => sql`${k}`),
    ', ',
  )})`;

/**
 * Weights of the weighted quantiles: ClickHouse's exact weighted quantile takes integer
 * weights, so adjusted counts are scaled by 1024 and rounded (error < 0.05% of a weight).
 */
const WEIGHT_SCALE = 1024;

/** The query (pure: snapshotted in episodes.test.ts). */
export function episodeWindowsSql(s: EpisodeScope): Sql {
  const windowNs = BigInt(Math.round(s.windowMs * 1e6));
  const service = s.service !== undefined ? sql` AND ServiceName = ${s.service}` : raw('');
  const ctes = [
    {
      name: 'entered',
      body: sql`
  SELECT cityHash64(TraceId, ParentSpanId) AS parentKey, ParentSpanId != '' AS hasParent,
    ServiceName AS service, SpanName AS operation, ${hostOf('ResourceAttributes')} AS host0,
    ${kindIn(SERVER_KINDS, 'SpanKind')} AS isServer,
    toUnixTimestamp64Nano(Timestamp) AS startNs, toInt64(Duration) AS durationNs,
    ${adjustedCountSql()} AS weight
  FROM otel_traces
  WHERE ${inWindow(s.fromNs, s.toNs)}${service}`,
    },
    {
      name: 'parents',
      body: sql`
  SELECT cityHash64(TraceId, SpanId) AS key, ServiceName AS parentService,
    SpanName AS parentOperation, ${kindIn(CLIENT_KINDS, 'SpanKind')} AS parentIsClient,
    toInt64(Duration) AS parentDurationNs, toUInt8(1) AS found
  FROM otel_traces
  WHERE ${inWindow(s.fromNs - EDGE_SLACK_NS, s.toNs + EDGE_SLACK_NS)}`,
    },
    {
      name: 'calls',
      body: sql`
  SELECT service, operation, if(host0 = '', ${UNKNOWN_HOST}, host0) AS host,
    parentService, parentOperation, startNs, durationNs AS calleeNs,
    if(parentIsClient, parentDurationNs, durationNs) AS edgeNs, weight,
    found = 1 AND parentService != service AS crossService
  FROM entered AS e
  LEFT ANY JOIN parents AS p ON e.parentKey = p.key
  WHERE isServer OR crossService`,
    },
    {
      name: 'series',
      body: sql`
  SELECT 'callee' AS kind, service, host, '' AS parentService, '' AS parentOperation,
    '' AS operation, startNs, calleeNs AS latencyNs, weight
  FROM calls
  UNION ALL
  SELECT 'edge' AS kind, service, '' AS host, parentService, parentOperation, operation,
    startNs, edgeNs AS latencyNs, weight
  FROM calls WHERE crossService`,
    },
  ];
  const weightInt = sql`toUInt64(round(weight * ${param(WEIGHT_SCALE, 'UInt32')}))`;
  const bucket = sql`toUInt16(floor(log2(greatest(latencyNs, 1)) * ${param(EPISODE_BUCKETS_PER_OCTAVE, 'UInt8')}))`;
  return withCtes(
    ctes,
    sql`
SELECT kind, service, host, parentService, parentOperation, operation,
  toInt64(intDiv(startNs, ${ns(windowNs)})) AS window,
  toUInt32(count()) AS calls, sum(weight) AS weightedCalls,
  quantileExactWeighted(0.5)(latencyNs, ${weightInt}) / 1e6 AS p50Ms,
  quantileExactWeighted(0.99)(latencyNs, ${weightInt}) / 1e6 AS p99Ms,
  sumMap([${bucket}], [toUInt32(1)]) AS hist,
  hist.1 AS buckets, hist.2 AS counts
FROM series
GROUP BY kind, service, host, parentService, parentOperation, operation, window
ORDER BY kind, service, host, parentService, parentOperation, operation, window
SETTINGS join_algorithm = 'parallel_hash'`,
  );
}

/** The (series, window) aggregates of the scope; see the module comment. */
export async function selectEpisodeWindows(
  store: Store,
  scope: EpisodeScope,
): Promise<EpisodeWindowRow[]> {
  // JSON numbers of ClickHouse: 64-bit integers come as text, the rest as numbers.
  type Num = number | string;
  const rows = await store.query<
    Omit<
      EpisodeWindowRow,
      'window' | 'calls' | 'weightedCalls' | 'p50Ms' | 'p99Ms' | 'buckets' | 'counts'
    > & {
      window: Num;
      calls: Num;
      weightedCalls: Num;
      p50Ms: Num;
      p99Ms: Num;
      buckets: Num[];
      counts: Num[];
    }
  >(episodeWindowsSql(scope));
  return rows.map((r) => ({
    kind: r.kind,
    service: r.service,
    host: r.host,
    parentService: r.parentService,
    parentOperation: r.parentOperation,
    operation: r.operation,
    window: Number(r.window),
    calls: Number(r.calls),
    weightedCalls: Number(r.weightedCalls),
    p50Ms: Number(r.p50Ms),
    p99Ms: Number(r.p99Ms),
    buckets: r.buckets.map(Number),
    counts: r.counts.map(Number),
  }));
}
