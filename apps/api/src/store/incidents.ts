import { PEER_SERVICE_KEY, SERVER_ADDRESS_KEY, type CauseSpan } from '@tailscope/analysis';
import type { Store } from './engine/client';
import { hostOf } from './sql/ctes';
import { join, param, raw, sql, type Sql } from './sql/template';
import { execRowBinary, RowBinaryReader } from './sql/row-binary';
import { TRACES, TRACE_ID_TS } from './traces/tables';
import { copyCovers, TRACE_SPANS_TABLE } from './traces/trace-spans';
import {
  inWindow,
  isRequestRoot,
  rootsWindow,
  TRACE_SLACK_NS,
  type RootRow,
} from './traces/filters';

/**
 * The reads of an incident's root-cause ranking (routes/incidents.ts): which requests it
 * touched and their root operation, and the spans of a bounded sample of slow and typical
 * requests with the host and peer the ranking names. Every value is bound; every query runs
 * under the store's budget. The roots themselves are sampled with traces-roots.ts.
 */

export interface IncidentScope {
  fromNs: bigint;
  toNs: bigint;
  /** Services whose spans in [fromNs, toNs) mark a request as touched. */
  services: readonly string[];
  /**
   * The operations requests enter by, when known (the call series' callers no call reaches):
   * the root is looked for among them only, read through the table's primary key instead of
   * every span's parent in the window (160-210 ms at 10M spans).
   */
  entries?: readonly { service: string; operation: string }[] | undefined;
}

/**
 * Requests touched (distinct traces with a span of the services starting in the window) and
 * the busiest request root operation among them (its root may start up to the trace slack
 * before the window), or null when none has a stored root.
 */
export async function selectIncidentRequests(
  store: Store,
  s: IncidentScope,
): Promise<{ requests: number; root: { service: string; operation: string } | null }> {
  const touched = sql`SELECT DISTINCT TraceId FROM ${TRACES}
      WHERE ${inWindow(s.fromNs, s.toNs)} AND ServiceName IN ${param([...s.services], 'Array(String)')}`;
  const entries = s.entries ?? [];
  const among =
    entries.length > 0
      ? sql`ServiceName IN ${param([...new Set(entries.map((e) => e.service))], 'Array(String)')}
      AND SpanName IN ${param([...new Set(entries.map((e) => e.operation))], 'Array(String)')} AND `
      : raw('');
  // The roots are found through the sort key (entry operations, time): a few granules. The
  // trace-id set of the touched requests (tens of thousands) is only checked on their rows; used
  // for index analysis (the trace-id bloom filter) it cost 60-70 ms at 10M spans, for nothing.
  const [count, roots] = await Promise.all([
    store.query<{ n: string }>(sql`SELECT toString(count()) AS n FROM (${touched})`),
    store.query<{ service: string; operation: string }>(sql`
    SELECT ServiceName AS service, SpanName AS operation FROM ${TRACES}
    WHERE ${among}${isRequestRoot} AND ${inWindow(s.fromNs - TRACE_SLACK_NS, s.toNs)}
      AND TraceId IN (${touched})
    GROUP BY ServiceName, SpanName
    ORDER BY count() DESC, ServiceName, SpanName
    LIMIT 1
    SETTINGS use_index_for_in_with_subqueries = 0`),
  ]);
  const top = roots[0];
  // No root among the entry operations (a root that calls nothing judged): look at them all.
  if (!top && entries.length > 0) return selectIncidentRequests(store, { ...s, entries: [] });
  return { requests: Number(count[0]?.n ?? 0), root: top ?? null };
}

/** Most time intervals the traces' read names (merged across the closest gaps beyond). */
const MAX_INTERVALS = 256;

/**
 * Where the given traces' spans lie: each trace's interval from the trace-id table (its spans'
 * first start to last end, whole seconds), epoch s; null without the table, or when a trace
 * has none there (or one outside 1970-2106, where DateTime saturates: spans.ts traceFilter).
 */
async function traceIntervals(
  store: Store,
  roots: readonly RootRow[],
): Promise<[number, number][] | null> {
  if (!store.accelerators.traceIdTs) return null;
  const rows = await store.query<{ start: string; end: string }>(sql`
    SELECT toString(toUnixTimestamp(min(Start))) AS start, toString(toUnixTimestamp(max(End))) AS end
    FROM ${TRACE_ID_TS}
    WHERE TraceId IN ${param(
      roots.map((r) => r.traceId),
      'Array(String)',
    )}
    GROUP BY TraceId`);
  const spans = rows
    .map((r) => [Number(r.start), Number(r.end) + 1] as [number, number])
    .filter(([a, b]) => a > 0 && b < 4_294_967_295);
  return spans.length < rows.length || spans.length === 0 ? null : spans;
}

/**
 * The traces' intervals merged (at most `max`), as an OR of time ranges the table's sort key
 * can skip by. The sampled requests of an incident and of its baseline are spread over up to
 * four times the incident's length: the single window from the first to the last (rootsWindow)
 * read nearly every granule of an hour at 10M spans (2 s of the answer); their own intervals
 * are a few percent of it. Without the intervals, that one window. `max` 1: the hull of the
 * intervals (the same spans match it, as each trace's spans lie in its interval), only to prune
 * the days a trace-id-ordered table need not read.
 */
function tracesWindows(
  roots: readonly RootRow[],
  intervals: [number, number][] | null,
  max: number,
): Sql {
  if (!intervals) return rootsWindow(roots);
  return join(
    mergeIntervals(intervals, max).map(
      ([a, b]) =>
        sql`(Timestamp >= toDateTime64(${param(a, 'Int64')}, 9) AND Timestamp < toDateTime64(${param(b, 'Int64')}, 9))`,
    ),
    ' OR ',
  );
}

/** Whether the narrow copy holds every span of the intervals' hull (trace-spans.ts). */
async function narrowCovers(store: Store, intervals: [number, number][] | null): Promise<boolean> {
  if (!store.accelerators.traceSpans || !intervals) return false;
  const lo = Math.min(...intervals.map((i) => i[0]));
  const hi = Math.max(...intervals.map((i) => i[1]));
  return copyCovers(store, BigInt(lo) * 1_000_000_000n, BigInt(hi) * 1_000_000_000n);
}

/**
 * Intervals [a, b) sorted and merged where they touch, then, while more than `max`, joined
 * across the smallest gaps (a superset: never a span left out). Pure.
 */
export function mergeIntervals(
  intervals: readonly (readonly [number, number])[],
  max: number,
): [number, number][] {
  const out: [number, number][] = [];
  for (const [a, b] of [...intervals].sort((x, y) => x[0] - y[0] || x[1] - y[1])) {
    const last = out[out.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  while (out.length > Math.max(1, max)) {
    let at = 0;
    for (let i = 1; i < out.length - 1; i++)
      if (
        (out[i + 1]?.[0] ?? 0) - (out[i]?.[1] ?? 0) <
        (out[at + 1]?.[0] ?? 0) - (out[at]?.[1] ?? 0)
      )
        at = i;
    const [x, y] = [out[at] as [number, number], out[at + 1] as [number, number]];
    out.splice(at, 2, [x[0], Math.max(x[1], y[1])]);
  }
  return out;
}

/**
 * The spans of the given traces as the ranking reads them (times in ms from each trace's root
 * start), grouped per trace in the order of `roots`; at most `maxSpans` in all.
 *
 * In the spans table the sampled traces have spans in nearly every granule of their hour (620
 * of 636 at 10M spans: each (service, span name) granule spans ~80 s, the samples' intervals
 * are ~20 s apart), so every column read there is read for ~5M rows. The store's narrow copy
 * ordered by trace id (trace-spans.ts), when it has one, reads a granule or so per trace and
 * part instead. In the spans table, the host and peer are looked up in the whole maps after the
 * trace filter (optimize_functions_to_subcolumns off): as subcolumns, each of the six keys was
 * extracted from every row of those granules first (~17% of the read's CPU).
 */
export async function selectCauseSpans(
  store: Store,
  roots: readonly RootRow[],
  maxSpans: number,
): Promise<CauseSpan[][]> {
  if (roots.length === 0) return [];
  // The narrow copy ordered by trace id when it holds these spans (trace-spans.ts: a store
  // without it, or a range its background copy has not reached): host and peer are its
  // columns, computed at insert by the same expressions.
  const intervals = await traceIntervals(store, roots);
  const narrow = await narrowCovers(store, intervals);
  const hostPeer = narrow
    ? sql`CAST(Host, 'String'), CAST(Peer, 'String')`
    : sql`${hostOf('ResourceAttributes')},
      if(SpanAttributes[${PEER_SERVICE_KEY}] != '', SpanAttributes[${PEER_SERVICE_KEY}],
        SpanAttributes[${SERVER_ADDRESS_KEY}])`;
  // Times in ns from the earliest root start, as Float64 (exact integers below 2^53 ns, 104
  // days), so each span's ms from its root are the same integer difference as from text.
  const base = roots.reduce(
    (m, r) => (BigInt(r.startNs) < m ? BigInt(r.startNs) : m),
    BigInt(roots[0]?.startNs ?? 0),
  );
  // RowBinary, not JSON: ~12k rows of ten columns, formatted and parsed as text, were a fifth of
  // this read (docs/incidents.md).
  const body = await execRowBinary(
    store,
    sql`
    SELECT TraceId, SpanId, ParentSpanId,
      CAST(ServiceName, 'String'), CAST(SpanName, 'String'), CAST(SpanKind, 'String'), ${hostPeer},
      toFloat64(toUnixTimestamp64Nano(Timestamp) - ${param(base.toString(), 'Int64')}),
      toFloat64(Duration)
    FROM ${narrow ? raw(TRACE_SPANS_TABLE) : TRACES}
    WHERE TraceId IN ${param(
      roots.map((r) => r.traceId),
      'Array(String)',
    )} AND (${tracesWindows(roots, intervals, narrow ? 1 : MAX_INTERVALS)})
    LIMIT ${param(maxSpans, 'UInt64')}
    SETTINGS optimize_functions_to_subcolumns = 0`,
  );
  const t0Of = new Map(roots.map((r) => [r.traceId, Number(BigInt(r.startNs) - base)]));
  const byTrace = new Map<string, CauseSpan[]>();
  const rb = new RowBinaryReader(body);
  while (!rb.done()) {
    const traceId = rb.string();
    const spanId = rb.string();
    const parentSpanId = rb.string();
    const service = rb.string();
    const operation = rb.string();
    const kind = rb.string();
    const host = rb.string();
    const peer = rb.string();
    const startNs = rb.float64();
    const durationNs = rb.float64();
    const t0 = t0Of.get(traceId);
    if (t0 === undefined) continue;
    const span: CauseSpan = {
      spanId,
      parentSpanId,
      service,
      operation,
      kind,
      host,
      peer,
      startMs: (startNs - t0) / 1e6,
      durationMs: durationNs / 1e6,
    };
    const list = byTrace.get(traceId);
    if (list) list.push(span);
    else byTrace.set(traceId, [span]);
  }
  return roots.map((r) => byTrace.get(r.traceId) ?? []);
}
