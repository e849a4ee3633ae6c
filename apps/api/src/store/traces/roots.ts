import type { Store } from '../engine/client';
import { adjustedCountSql, quantileWeight } from './sampling';
import { param, raw, sql } from '../sql/template';
import { TRACES } from './tables';
import { rootWhere, type RootFilter, type RootRow } from './filters';

export type { RootFilter } from './filters';

/**
 * The reads of the aggregated critical path: root spans (ParentSpanId = '') of `otel_traces`
 * filtered by service, name, duration and time; the spans of a bounded set of traces are read
 * in traces-paths.ts.
 * Every value is bound; every query runs under the store's budget.
 */

/** The busiest root operation in a range (of one service when given), or null. */
export async function selectBusiestRoot(
  store: Store,
  f: RootFilter,
): Promise<{ service: string; operation: string } | null> {
  const [top] = await selectRootOperations(store, f, 1);
  return top ? { service: top.service, operation: top.operation } : null;
}

/**
 * The request root operations of a range (of one service when given), busiest first, at most
 * `limit`: the critical path's root selector. Background-activity roots are not requests.
 */
export async function selectRootOperations(
  store: Store,
  f: RootFilter,
  limit: number,
): Promise<{ service: string; operation: string; requests: number }[]> {
  const rows = await store.query<{ service: string; operation: string; requests: string }>(sql`
    SELECT ServiceName AS service, SpanName AS operation, toString(uniqExact(TraceId)) AS requests
    FROM ${TRACES} WHERE ${rootWhere(f)}
    GROUP BY ServiceName, SpanName
    ORDER BY count() DESC, ServiceName, SpanName
    LIMIT ${param(limit, 'UInt32')}`);
  return rows.map((r) => ({ ...r, requests: Number(r.requests) }));
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
  if (f.weighted === true) return selectWeightedRootQuantiles(store, f, slowQuantile);
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

/** A root's adjusted count; spans without TraceState skip the regular expressions. */
const rootWeight = sql`if(TraceState = '', 1.0, ${adjustedCountSql()})`;

/** selectRootQuantiles weighted: requests a sum of weights, quantiles weighted (x1000). */
async function selectWeightedRootQuantiles(
  store: Store,
  f: RootFilter,
  slowQuantile: number,
): Promise<RootQuantiles> {
  const rows = await store.query<{ n: number; q: number[] }>(sql`
    SELECT round(sum(w)) AS n,
      quantilesExactWeightedInterpolated(0.4, 0.6, ${param(slowQuantile, 'Float64')})(toFloat64(Duration), ${raw(quantileWeight('w'))}) AS q
    FROM (SELECT TraceId, max(Duration) AS Duration, any(${rootWeight}) AS w FROM ${TRACES} WHERE ${rootWhere(f)} GROUP BY TraceId)`);
  const r = rows[0];
  const q = r?.q ?? [];
  return {
    requests: r?.n ?? 0,
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
  // Weighted: each root's weight, and the band's count as the sum of weights.
  const weighted =
    f.weighted === true
      ? sql`any(${rootWeight}) AS weight,
      toString(round(sum(weight) OVER ())) AS total`
      : sql`toString(count() OVER ()) AS total`;
  const rows = await store.query<RootRow & { total: string }>(sql`
    SELECT TraceId AS traceId, any(ServiceName) AS rootService, any(SpanName) AS rootOperation,
      toString(toUnixTimestamp64Nano(min(Timestamp))) AS startNs, toString(max(Duration)) AS durationNs,
      ${weighted}
    FROM ${TRACES} WHERE ${rootWhere(f)}
    GROUP BY TraceId
    ORDER BY cityHash64(TraceId), TraceId
    LIMIT ${param(n, 'UInt64')}`);
  return {
    requests: Number(rows[0]?.total ?? 0),
    roots: rows.map(({ total: _total, ...r }) => r),
  };
}
