import type { Store } from './client';
import { param, sql, type Sql } from './sql';
import { withCtes, type Cte } from './sql-ctes';
import { TRACES } from './tables';
import {
  inWindow,
  isError,
  rootsWindow,
  rootWhere,
  spanWhere,
  TRACE_SLACK_NS,
  type RootFilter,
  type RootRow,
} from './traces-filters';

/**
 * Trace search: traces with any span matching service, name and duration (Jaeger's
 * semantics), or without span filters those whose root starts in range; then span and error
 * counts of the chosen traces. Every value is bound; every query runs under the store's budget.
 * The critical path's reads of roots are in traces-roots.ts.
 */

export type { RootFilter } from './traces-filters';

export interface TraceSearch extends RootFilter {
  error?: boolean | undefined;
  limit: number;
  order: 'newest' | 'slowest';
}

export interface TraceSearchRow {
  traceId: string;
  rootService: string;
  rootOperation: string;
  startNs: string;
  durationNs: string;
  spanCount: number;
  errorCount: number;
  /** The first (earliest) span that matched the span filters; absent without them. */
  matchedSpan?: MatchedSpan;
}

export interface MatchedSpan {
  spanId: string;
  service: string;
  operation: string;
  durationNs: string;
}

/**
 * Matching traces, newest or slowest first (by their root), at most `limit` + 1 (the caller
 * tells "more" from the extra one): with span filters, traces with any matching span
 * (matchingRoots), else the traces whose root starts in range. A root stored twice counts once. Span and error counts come from a second query over the chosen
 * traces only, within their roots' interval and a minute's slack.
 */
export async function searchTraces(store: Store, s: TraceSearch): Promise<TraceSearchRow[]> {
  const errorFilter =
    s.error === undefined
      ? sql`1`
      : sql`TraceId ${s.error ? sql`IN` : sql`NOT IN`} (
          SELECT DISTINCT TraceId FROM ${TRACES}
          WHERE ${isError} AND ${inWindow(s.fromNs - TRACE_SLACK_NS, s.toNs + TRACE_SLACK_NS)})`;
  const roots = hasSpanFilter(s)
    ? await matchingRoots(store, s, errorFilter)
    : await rootsInRange(store, s, errorFilter);
  if (roots.length === 0) return [];
  const counts = await countSpans(store, roots);
  return roots.map((r) => {
    const c = counts.get(r.traceId);
    return { ...r, spanCount: c?.spans ?? 1, errorCount: c?.errors ?? 0 };
  });
}

const hasSpanFilter = (f: RootFilter): boolean =>
  f.service !== undefined ||
  f.operation !== undefined ||
  f.minDurationNs !== undefined ||
  f.maxDurationNs !== undefined;

/** Without span filters: the traces whose root starts in range (every trace there matches). */
async function rootsInRange(store: Store, s: TraceSearch, errorFilter: Sql): Promise<RootRow[]> {
  const orderBy = s.order === 'slowest' ? sql`max(Duration) DESC` : sql`min(Timestamp) DESC`;
  return store.query<RootRow>(sql`
    SELECT TraceId AS traceId, any(ServiceName) AS rootService, any(SpanName) AS rootOperation,
      toString(toUnixTimestamp64Nano(min(Timestamp))) AS startNs, toString(max(Duration)) AS durationNs
    FROM ${TRACES}
    WHERE ${rootWhere(s)} AND ${errorFilter}
    GROUP BY TraceId
    ORDER BY ${orderBy}, TraceId
    LIMIT ${param(s.limit + 1, 'UInt64')}`);
}

/**
 * With span filters: traces in which ANY span starting in range has the service (and
 * operation) and, if asked, a duration in [min, max]: Jaeger's semantics, so a callee deep in
 * the tree finds its traces. One query: the matching spans grouped per trace (the first match,
 * by start, is `matchedSpan`), joined to the traces' roots (read within the range and the
 * slack, only for the matched traces); a trace whose root is not stored is not listed (the
 * answer names the root). Ordered and limited like the root search.
 */
async function matchingRoots(
  store: Store,
  s: TraceSearch,
  errorFilter: Sql,
): Promise<(RootRow & { matchedSpan: MatchedSpan })[]> {
  const orderBy = s.order === 'slowest' ? sql`r.durationNs DESC` : sql`r.startNs DESC`;
  const matched: Cte = {
    name: 'matched',
    // Read twice (the roots' IN and the join): computed once where the engine can.
    materialize: true,
    body: sql`
  SELECT TraceId, argMin((SpanId, ServiceName, SpanName, Duration), (Timestamp, SpanId)) AS firstMatch
  FROM ${TRACES}
  WHERE ${spanWhere(s)} AND ${errorFilter}
  GROUP BY TraceId`,
  };
  const roots: Cte = {
    name: 'roots',
    body: sql`
  SELECT TraceId, any(ServiceName) AS rootService, any(SpanName) AS rootOperation,
    toUnixTimestamp64Nano(min(Timestamp)) AS startNs, max(Duration) AS durationNs
  FROM ${TRACES}
  WHERE ParentSpanId = '' AND ${inWindow(s.fromNs - TRACE_SLACK_NS, s.toNs + TRACE_SLACK_NS)}
    AND TraceId IN (SELECT TraceId FROM matched)
  GROUP BY TraceId`,
  };
  const rows = await store.query<
    RootRow & { mSpanId: string; mService: string; mOperation: string; mDurationNs: string }
  >(
    withCtes(
      [matched, roots],
      sql`SELECT r.TraceId AS traceId, r.rootService AS rootService, r.rootOperation AS rootOperation,
  toString(r.startNs) AS startNs, toString(r.durationNs) AS durationNs,
  tupleElement(mt.firstMatch, 1) AS mSpanId, tupleElement(mt.firstMatch, 2) AS mService,
  tupleElement(mt.firstMatch, 3) AS mOperation, toString(tupleElement(mt.firstMatch, 4)) AS mDurationNs
FROM roots AS r INNER JOIN matched AS mt ON r.TraceId = mt.TraceId
ORDER BY ${orderBy}, traceId
LIMIT ${param(s.limit + 1, 'UInt64')}`,
    ),
  );
  return rows.map(({ mSpanId, mService, mOperation, mDurationNs, ...r }) => ({
    ...r,
    matchedSpan: {
      spanId: mSpanId,
      service: mService,
      operation: mOperation,
      durationNs: mDurationNs,
    },
  }));
}

async function countSpans(
  store: Store,
  roots: readonly RootRow[],
): Promise<Map<string, { spans: number; errors: number }>> {
  const ids = roots.map((r) => r.traceId);
  const rows = await store.query<{ traceId: string; spans: string; errors: string }>(sql`
    SELECT TraceId AS traceId, toString(uniqExact(SpanId)) AS spans,
      toString(uniqExactIf(SpanId, ${isError})) AS errors
    FROM ${TRACES}
    WHERE TraceId IN ${param(ids, 'Array(String)')} AND ${rootsWindow(roots)}
    GROUP BY TraceId`);
  return new Map(
    rows.map((r) => [r.traceId, { spans: Number(r.spans), errors: Number(r.errors) }]),
  );
}
