import type { Store } from './client';
import { join, param, sql, type Sql } from './sql';
import { withCtes, type Cte } from './sql-ctes';
import { TRACES } from './tables';

/**
 * Trace search (any span filtered by service, name and duration: Jaeger's semantics) and the
 * reads of the aggregated critical path: root spans (ParentSpanId = '') of `otel_traces`
 * filtered by service, name, duration and time, then the spans of a bounded
 * set of traces. Every value is bound; every query runs under the store's budget.
 */

/** A nanosecond instant bound as Int64 (the decimal string: no float rounding). */
const ns = (v: bigint): Sql => sql`${param(v.toString(), 'Int64')}`;
const inWindow = (lo: bigint, hi: bigint): Sql =>
  sql`Timestamp >= fromUnixTimestamp64Nano(${ns(lo)}) AND Timestamp < fromUnixTimestamp64Nano(${ns(hi)})`;
const isError = sql`lower(StatusCode) IN ('error', 'status_code_error')`;

/** How far a trace's spans may start from its root's interval (clock skew, async tails). */
const TRACE_SLACK_NS = 60_000_000_000n;

export interface RootFilter {
  fromNs: bigint;
  toNs: bigint;
  service?: string | undefined;
  operation?: string | undefined;
  minDurationNs?: bigint | undefined;
  maxDurationNs?: bigint | undefined;
}

/** The filters on one span (Jaeger's semantics for search: the same span has them all). */
function spanWhere(f: RootFilter): Sql {
  const parts: Sql[] = [inWindow(f.fromNs, f.toNs)];
  if (f.service !== undefined) parts.push(sql`ServiceName = ${f.service}`);
  if (f.operation !== undefined) parts.push(sql`SpanName = ${f.operation}`);
  if (f.minDurationNs !== undefined)
    parts.push(sql`Duration >= ${param(f.minDurationNs.toString(), 'UInt64')}`);
  if (f.maxDurationNs !== undefined)
    parts.push(sql`Duration <= ${param(f.maxDurationNs.toString(), 'UInt64')}`);
  return join(parts, ' AND ');
}

/** The same filters on root spans (the critical path's requests). */
const rootWhere = (f: RootFilter): Sql => sql`ParentSpanId = '' AND ${spanWhere(f)}`;

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

interface RootRow {
  traceId: string;
  rootService: string;
  rootOperation: string;
  startNs: string;
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

/** The time window holding every span of these roots: their interval widened by the slack. */
function rootsWindow(roots: readonly { startNs: string; durationNs: string }[]): Sql {
  let lo = BigInt(roots[0]?.startNs ?? '0');
  let hi = lo;
  for (const r of roots) {
    const start = BigInt(r.startNs);
    const end = start + BigInt(r.durationNs);
    if (start < lo) lo = start;
    if (end > hi) hi = end;
  }
  return inWindow(lo - TRACE_SLACK_NS, hi + TRACE_SLACK_NS + 1n);
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

/** The busiest root operation in a range (of one service when given), or null. */
export async function selectBusiestRoot(
  store: Store,
  f: RootFilter,
): Promise<{ service: string; operation: string } | null> {
  const rows = await store.query<{ service: string; operation: string }>(sql`
    SELECT ServiceName AS service, SpanName AS operation
    FROM ${TRACES} WHERE ${rootWhere(f)}
    GROUP BY ServiceName, SpanName
    ORDER BY count() DESC, ServiceName, SpanName
    LIMIT 1`);
  return rows[0] ?? null;
}

export interface RootQuantiles {
  requests: number;
  /** Root duration quantiles, ns: p40, p60 and the slow band's q. */
  p40Ns: number;
  p60Ns: number;
  slowNs: number;
}

/** Count and exact (type 7) quantiles of one root operation's durations in the range. */
export async function selectRootQuantiles(
  store: Store,
  f: RootFilter,
  slowQuantile: number,
): Promise<RootQuantiles> {
  const rows = await store.query<{ n: string; q: number[] }>(sql`
    SELECT toString(count()) AS n,
      quantilesExactInclusive(0.4, 0.6, ${param(slowQuantile, 'Float64')})(toFloat64(Duration)) AS q
    FROM (SELECT TraceId, max(Duration) AS Duration FROM ${TRACES} WHERE ${rootWhere(f)} GROUP BY TraceId)`);
  const r = rows[0];
  const q = r?.q ?? [];
  return {
    requests: Number(r?.n ?? 0),
    p40Ns: q[0] ?? NaN,
    p60Ns: q[1] ?? NaN,
    slowNs: q[2] ?? NaN,
  };
}

/**
 * Up to `n` roots with duration in [minNs, maxNs] (inclusive), a deterministic sample by the
 * trace id's hash (so the same range gives the same answer), plus the band's count.
 */
export async function sampleRoots(
  store: Store,
  f: RootFilter,
  n: number,
): Promise<{ requests: number; roots: RootRow[] }> {
  const rows = await store.query<RootRow & { total: string }>(sql`
    SELECT TraceId AS traceId, any(ServiceName) AS rootService, any(SpanName) AS rootOperation,
      toString(toUnixTimestamp64Nano(min(Timestamp))) AS startNs, toString(max(Duration)) AS durationNs,
      toString(count() OVER ()) AS total
    FROM ${TRACES} WHERE ${rootWhere(f)}
    GROUP BY TraceId
    ORDER BY cityHash64(TraceId), TraceId
    LIMIT ${param(n, 'UInt64')}`);
  return {
    requests: Number(rows[0]?.total ?? 0),
    roots: rows.map(({ total: _total, ...r }) => r),
  };
}

export interface PathSpanRow {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  service: string;
  operation: string;
  kind: string;
  startNs: string;
  durationNs: string;
}

/**
 * The spans of the given traces (the minimal columns a critical path needs), in one query, at
 * most `maxSpans` (the caller's bound: a trace with a million spans must not cost a million).
 */
export async function selectPathSpans(
  store: Store,
  roots: readonly { traceId: string; startNs: string; durationNs: string }[],
  maxSpans: number,
): Promise<PathSpanRow[]> {
  if (roots.length === 0) return [];
  return store.query<PathSpanRow>(sql`
    SELECT TraceId AS traceId, SpanId AS spanId, ParentSpanId AS parentSpanId,
      ServiceName AS service, SpanName AS operation, SpanKind AS kind,
      toString(toUnixTimestamp64Nano(Timestamp)) AS startNs, toString(Duration) AS durationNs
    FROM ${TRACES}
    WHERE TraceId IN ${param(
      roots.map((r) => r.traceId),
      'Array(String)',
    )} AND ${rootsWindow(roots)}
    LIMIT ${param(maxSpans, 'UInt64')}`);
}
