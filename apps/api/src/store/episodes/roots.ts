import { windowFromBins, type SeriesWindow } from '@tailscope/analysis';
import type { Store } from '../engine/client';
import { inWindow, ns } from '../sql/ctes';
import { param, sql, type Sql } from '../sql/template';
import { adjustedCountSql } from '../traces/sampling';
import { isRequestRoot } from '../traces/filters';
import { TRACES } from '../traces/tables';
import { HISTOGRAM, judgedFromNs } from './sql';

/**
 * Request roots as series of their own (docs/analysis.md "Incidents": requests slower with no
 * call slower): per root operation (service and span name, every host) and window, the fine
 * histogram of the roots' durations, weighted by their adjusted count, as the call series have
 * (sql.ts). A fault in the root's own process that slows no call, such as a smaller worker pool
 * in front of the calls, shows only here. Two reads, both narrow: the root operations seen in
 * the first and last ROOT_PROBE_NS of the range (the one read of ParentSpanId over a short
 * stretch), then their windows, found through the table's primary key (service, span name).
 * The first read is skipped when the call series already name the operations requests enter
 * by (callers no call reaches); a candidate that is no root simply has no rows.
 */

/** How much of each end of the range is read to learn its root operations. */
export const ROOT_PROBE_NS = 120_000_000_000n;
/** Root operations judged at most (the busiest). */
export const MAX_ROOT_OPERATIONS = 20;

export interface RootOperation {
  service: string;
  operation: string;
}

/** The busiest root operations at both ends of [fromNs, toNs). */
export async function selectRootOperations(
  store: Store,
  s: { fromNs: bigint; toNs: bigint },
): Promise<RootOperation[]> {
  const headTo = s.fromNs + ROOT_PROBE_NS < s.toNs ? s.fromNs + ROOT_PROBE_NS : s.toNs;
  const tailFrom = s.toNs - ROOT_PROBE_NS > headTo ? s.toNs - ROOT_PROBE_NS : headTo;
  return store.query<RootOperation>(sql`
    SELECT CAST(ServiceName, 'String') AS service, CAST(SpanName, 'String') AS operation
    FROM ${TRACES}
    WHERE ((${inWindow(s.fromNs, headTo)}) OR (${inWindow(tailFrom, s.toNs)})) AND ${isRequestRoot}
    GROUP BY service, operation
    ORDER BY count() DESC, service, operation
    LIMIT ${param(MAX_ROOT_OPERATIONS, 'UInt32')}`);
}

/** Per (root service, operation, window) histograms over [from, to). Pure builder. */
export function rootWindowsSql(s: {
  fromNs: bigint;
  toNs: bigint;
  windowMs: number;
  roots: readonly RootOperation[];
}): Sql {
  const windowNs = BigInt(Math.round(s.windowMs * 1e6));
  // Unsampled roots carry no TraceState: `if` short-circuits past the adjusted count's regexes.
  const services = [...new Set(s.roots.map((r) => r.service))];
  const operations = [...new Set(s.roots.map((r) => r.operation))];
  return sql`
SELECT service, operation, window, h.1 AS bins, h.2 AS binCalls, h.3 AS binWeights
FROM (
  SELECT service, operation, window, ${HISTOGRAM} AS h
  FROM (
    SELECT CAST(ServiceName, 'String') AS service, CAST(SpanName, 'String') AS operation,
      toInt64(intDiv(toUnixTimestamp64Nano(Timestamp), ${ns(windowNs)})) AS window,
      toInt64(Duration) AS latencyNs, if(TraceState = '', 1.0, ${adjustedCountSql()}) AS weight
    FROM ${TRACES}
    WHERE ServiceName IN ${param(services, 'Array(String)')}
      AND SpanName IN ${param(operations, 'Array(String)')}
      AND ${inWindow(s.fromNs, s.toNs)} AND ${isRequestRoot}
  )
  GROUP BY service, operation, window
)`;
}

export interface RootSeries {
  service: string;
  operation: string;
  windows: SeriesWindow[];
}

type Num = number | string;

/**
 * The root series of the range (from the 10 s bucket holding its start), window by window: of
 * the `candidates` (the operations its calls come from that no call reaches: requests enter
 * there), else of its busiest root operations.
 */
export async function selectRootSeries(
  store: Store,
  scope: { fromNs: bigint; toNs: bigint; windowMs: number },
  candidates: readonly RootOperation[] = [],
): Promise<RootSeries[]> {
  // From the 10 s bucket holding the range start, as the call series (sql.ts judgedFromNs).
  const s = { ...scope, fromNs: judgedFromNs(scope.fromNs, scope.windowMs) };
  const roots =
    candidates.length > 0
      ? candidates.slice(0, MAX_ROOT_OPERATIONS)
      : await selectRootOperations(store, s);
  if (roots.length === 0) return [];
  const wanted = new Set(roots.map((r) => `${r.service}\0${r.operation}`));
  const rows = await store.query<{
    service: string;
    operation: string;
    window: Num;
    bins: Num[];
    binCalls: Num[];
    binWeights: Num[];
  }>(rootWindowsSql({ ...s, roots }));
  const series = new Map<string, RootSeries>();
  for (const r of rows) {
    const key = `${r.service}\0${r.operation}`;
    // Names of two root operations crossed (a service's root name that is another's only).
    if (!wanted.has(key)) continue;
    let x = series.get(key);
    if (!x) series.set(key, (x = { service: r.service, operation: r.operation, windows: [] }));
    x.windows.push(
      windowFromBins(Number(r.window), {
        bins: r.bins.map(Number),
        calls: r.binCalls.map(Number),
        weights: r.binWeights.map(Number),
      }),
    );
  }
  return [...series.values()];
}
