import type { Store } from '../engine/client';
import { param, sql, type Sql } from '../sql/template';
import { TRACES } from './tables';
import {
  inWindow,
  isError,
  rootsWindow,
  isRequestRoot,
  rootWhere,
  spanWhere,
  TRACE_SLACK_NS,
  type RootFilter,
  type RootRow,
} from './filters';

/**
 * Trace search: traces with any span matching service, name and duration (Jaeger's
 * semantics), or without span filters those whose root starts in range; then span and error
 * counts of the chosen traces. Every value is bound; every query runs under the store's budget.
 * The critical path's reads of roots are in traces-roots.ts.
 */

export type { RootFilter } from './filters';

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
 * (matchingRoots: newest first in windows back from the range's end, slowest first from the
 * slowest roots down), else the traces whose root starts in range. A root stored twice counts
 * once. Span and error counts (and the newest-first search's first matches) come from a second
 * query over the chosen traces only, within their roots' interval and a minute's slack.
 */
export async function searchTraces(store: Store, s: TraceSearch): Promise<TraceSearchRow[]> {
  const filtered = hasSpanFilter(s);
  if (filtered && s.order === 'slowest') return slowestMatching(store, s);
  const roots = filtered
    ? await newestMatchingRoots(store, s)
    : s.order === 'newest'
      ? await newestRoots(store, s)
      : await rootsInRange(store, s, errorFilter(s, s.fromNs));
  return withCounts(store, roots, filtered ? s : undefined);
}

/**
 * The roots with their span and error counts and, with span filters (`s`), their first match,
 * read in the same pass (one read of the chosen traces' spans instead of two: at 10M spans
 * and 1,001 traces 40-50 ms of CPU less); a root without a match is dropped.
 */
async function withCounts(
  store: Store,
  roots: readonly RootRow[],
  s?: TraceSearch,
): Promise<TraceSearchRow[]> {
  if (roots.length === 0) return [];
  const read = await countSpans(store, roots, rootsWindow(roots), s);
  return roots.flatMap((r) => {
    const c = read.counts.get(r.traceId);
    const row = { ...r, spanCount: c?.spans ?? 1, errorCount: c?.errors ?? 0 };
    if (!read.first) return [row];
    const m = read.first.get(r.traceId);
    return m ? [{ ...row, matchedSpan: m }] : [];
  });
}

/** Traces with (or without) an error span, read from `fromNs` on (slack either side). */
function errorFilter(s: TraceSearch, fromNs: bigint): Sql {
  return s.error === undefined
    ? sql`1`
    : sql`TraceId ${s.error ? sql`IN` : sql`NOT IN`} (
          SELECT DISTINCT TraceId FROM ${TRACES}
          WHERE ${isError} AND ${inWindow(fromNs - TRACE_SLACK_NS, s.toNs + TRACE_SLACK_NS)})`;
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
 * rootsInRange newest first, reading back from the range's end in growing windows, as
 * newestMatchingRoots does: every root starting in a window comes before every root starting
 * earlier, so once a window holds `limit` + 1 roots they are the whole range's first ones. The
 * Traces page opens on "All data" up to now, and grouping every root of the range to keep the
 * newest 100 took 270-750 ms at 1.2M spans with ingest beside it (bench:pages).
 */
async function newestRoots(store: Store, s: TraceSearch): Promise<RootRow[]> {
  const per100 = BigInt(Math.max(1, Math.ceil((s.limit + 1) / 101)));
  let back = ((s.toNs - s.fromNs) * per100) / FIRST_WINDOW_SHARE;
  for (;;) {
    const from = s.toNs - back;
    if (back <= 0n || from <= s.fromNs) return rootsInRange(store, s, errorFilter(s, s.fromNs));
    const rows = await rootsInRange(store, { ...s, fromNs: from }, errorFilter(s, from));
    if (rows.length > s.limit) return rows;
    // Twice as far, or as far as the roots found so far say `limit` + 1 need (x1.5).
    const wanted =
      rows.length === 0 ? 0n : (back * BigInt(3 * (s.limit + 1))) / BigInt(2 * rows.length);
    back = wanted > 2n * back ? wanted : 2n * back;
  }
}

/**
 * With span filters: traces in which ANY span starting in range has the service (and
 * operation) and, if asked, a duration in [min, max]: Jaeger's semantics, so a callee deep in
 * the tree finds its traces. One pass over the spans that match or are roots (read within the
 * range and the slack), grouped per trace, keeps the traces with both; a trace whose root is
 * not stored is not listed (the answer names the root). Ordered and limited like the root
 * search; the first match of each listed trace (its `matchedSpan`) is read after, for those
 * traces only, with their span counts (countSpans).
 *
 * `fromNs` (>= the range's start) narrows the matching spans' range: newestMatchingRoots.
 *
 * Measured at 10M spans with a service filter matching half of them: the matched spans joined
 * to the roots (the matches also read for the roots' IN) cost 1.0 s of CPU; the one pass
 * 0.3 s, and the first match read for the listed traces only, not for every matching one
 * (0.5 s more in the pass), beside the span counts. The rows are the same.
 */
async function matchingRoots(store: Store, s: TraceSearch, fromNs: bigint): Promise<RootRow[]> {
  const orderBy = s.order === 'slowest' ? sql`duration DESC` : sql`start DESC`;
  const match = spanWhere({ ...s, fromNs });
  const root = isRequestRoot;
  return store.query<RootRow>(sql`
    SELECT traceId, rootService, rootOperation, toString(start) AS startNs,
      toString(duration) AS durationNs
    FROM (
      SELECT TraceId AS traceId, anyIf(ServiceName, ${root}) AS rootService,
        anyIf(SpanName, ${root}) AS rootOperation,
        toUnixTimestamp64Nano(minIf(Timestamp, ${root})) AS start,
        maxIf(Duration, ${root}) AS duration
      FROM ${TRACES}
      WHERE ${inWindow(fromNs - TRACE_SLACK_NS, s.toNs + TRACE_SLACK_NS)}
        AND (${root} OR (${match})) AND ${errorFilter(s, fromNs)}
      GROUP BY TraceId
      HAVING countIf(${match}) > 0 AND countIf(${root}) > 0
      ORDER BY ${orderBy}, traceId
      LIMIT ${param(s.limit + 1, 'UInt64')}
    )
    ORDER BY ${orderBy}, traceId`);
}

/** The first window of the newest-first search: this share of the range, past the slack. */
const FIRST_WINDOW_SHARE = 64n;

/**
 * matchingRoots newest first, reading back from the range's end in growing windows: the last
 * 1/64 of the range per 100 traces asked (plus the slack), then each time at least twice as
 * far back, until `limit` + 1 traces are known whole; the last window is the full range, so
 * the rows are the full search's. A window from `w` finds every matching trace whose root starts at or after
 * `w` + the slack (its spans start at or after `w`, the same assumption as the span counts'
 * rootsWindow), so once the `limit` + 1 newest found start there, no older match can come
 * before them. The table is ordered by (service, name, time): each window reads its share of
 * the granules.
 */
async function newestMatchingRoots(store: Store, s: TraceSearch): Promise<RootRow[]> {
  // A longer list starts further back (at 10M spans, 1,000 traces: 30-40 ms of CPU less).
  const per100 = BigInt(Math.max(1, Math.ceil((s.limit + 1) / 101)));
  let back = TRACE_SLACK_NS + ((s.toNs - s.fromNs) * per100) / FIRST_WINDOW_SHARE;
  for (;;) {
    const from = s.toNs - back;
    if (from <= s.fromNs) return matchingRoots(store, s, s.fromNs);
    const rows = await matchingRoots(store, s, from);
    const whole = rows.filter((r) => BigInt(r.startNs) >= from + TRACE_SLACK_NS);
    if (whole.length > s.limit) return whole;
    // Twice as far, or as far as the traces found so far say `limit` + 1 need (x1.5).
    const covered = back - TRACE_SLACK_NS;
    const wanted =
      whole.length === 0
        ? 0n
        : TRACE_SLACK_NS + (covered * BigInt(3 * (s.limit + 1))) / BigInt(2 * whole.length);
    back = wanted > 2n * back ? wanted : 2n * back;
  }
}

/** The first slowest-first candidate round reads this many times `limit` + 1 roots. */
const FIRST_CANDIDATES = 1;
/** Past this many candidates the search reads every trace in one pass (matchingRoots). */
const MAX_CANDIDATES = 50_000;

/**
 * The search with span filters slowest first, from the slowest roots down: the n slowest roots
 * whose start lies where matchingRoots reads roots (the range and the slack), then their span
 * counts and first matches in one read, which tells which of them match. Every root outside
 * the n comes after them in the order (duration, then trace id), so once `limit` + 1 of them
 * match, or the n are every root, they are the full search's rows; else 8x as many, up to
 * MAX_CANDIDATES, then the one pass. Roots are a small share of the spans (1 in 170 in
 * bigtable-multiget): at 10M spans 135-150 ms of CPU (warm) instead of 420-640 ms.
 */
async function slowestMatching(store: Store, s: TraceSearch): Promise<TraceSearchRow[]> {
  const rootRange = {
    fromNs: s.fromNs - TRACE_SLACK_NS,
    toNs: s.toNs + TRACE_SLACK_NS,
    order: 'slowest' as const,
  };
  for (let n = FIRST_CANDIDATES * (s.limit + 1); n <= MAX_CANDIDATES; n *= 8) {
    const candidates = await rootsInRange(
      store,
      { ...rootRange, limit: n - 1 },
      errorFilter(s, s.fromNs),
    );
    const rows = await withCounts(store, candidates, s);
    if (rows.length > s.limit || candidates.length < n) return rows.slice(0, s.limit + 1);
  }
  return withCounts(store, await matchingRoots(store, s, s.fromNs), s);
}

/** Span and error counts of these traces, and with `s` their first matching span. */
async function countSpans(
  store: Store,
  roots: readonly RootRow[],
  window: Sql,
  s?: TraceSearch,
): Promise<{
  counts: Map<string, { spans: number; errors: number }>;
  first: Map<string, MatchedSpan> | null;
}> {
  const ids = roots.map((r) => r.traceId);
  const match = s ? spanWhere(s) : null;
  const firstMatch = match
    ? sql`, toString(countIf(${match})) AS matches,
      argMinIf((SpanId, ServiceName, SpanName, Duration), (Timestamp, SpanId), ${match}) AS firstMatch,
      tupleElement(firstMatch, 1) AS spanId, tupleElement(firstMatch, 2) AS service,
      tupleElement(firstMatch, 3) AS operation, toString(tupleElement(firstMatch, 4)) AS durationNs`
    : sql``;
  const rows = await store.query<
    { traceId: string; spans: string; errors: string; matches: string } & MatchedSpan
  >(sql`
    SELECT TraceId AS traceId, toString(uniqExact(SpanId)) AS spans,
      toString(uniqExactIf(SpanId, ${isError})) AS errors${firstMatch}
    FROM ${TRACES}
    PREWHERE ${window} AND TraceId IN ${param(ids, 'Array(String)')}
    GROUP BY TraceId`);
  return {
    counts: new Map(
      rows.map((r) => [r.traceId, { spans: Number(r.spans), errors: Number(r.errors) }]),
    ),
    first: match
      ? new Map(
          rows
            .filter((r) => r.matches !== '0')
            .map((r) => [
              r.traceId,
              {
                spanId: r.spanId,
                service: r.service,
                operation: r.operation,
                durationNs: r.durationNs,
              },
            ]),
        )
      : null,
  };
}
