import { EDGE_SLACK_NS, EPISODE_BUCKETS_PER_OCTAVE } from '@tailscope/analysis';
import { callCtes } from './calls-sql';
import type { Store } from './client';
import { inWindow, ns, withCtes } from './fanouts-sql';
import { adjustedCountSql } from './sampling';
import { param, raw, sql, type Sql } from './sql';
import { TRACES } from './tables';

/**
 * Per-window aggregates of the episode series (DESIGN.md "Definitions": Episode), over the
 * shared calls of calls-sql.ts (wrappers skipped, duplicates counted once, a call answered by
 * several SERVER spans is one call timed by its client). A call belongs to the window of its
 * start. Two kinds of series:
 * - `callee`: (callee service, callee host) of every call;
 * - `edge`: (caller service, caller operation) -> (callee service, callee operation), for calls
 *   whose caller span is known.
 * Calls are timed on the caller's clock (the call as the caller saw it). Each (series, window)
 * row carries stored calls, calls weighted by the sampling adjusted count of the call's span,
 * weighted p50/p99 and a log-latency histogram for the rank test in `@tailscope/analysis`
 * `detectEpisodes`.
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

/**
 * Weights of the weighted quantiles: ClickHouse's exact weighted quantile takes integer
 * weights, so adjusted counts are scaled by 1024 and rounded (error < 0.05% of a weight).
 */
const WEIGHT_SCALE = 1024;

/** The query (pure: snapshotted in episodes.test.ts). */
export function episodeWindowsSql(s: EpisodeScope): Sql {
  const windowNs = BigInt(Math.round(s.windowMs * 1e6));
  const service = s.service !== undefined ? sql` AND c.leafService = ${s.service}` : raw('');
  const ctes = [
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
