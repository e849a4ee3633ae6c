import type { Store } from '../engine/client';
import { param, raw, sql, type Sql } from '../sql/template';
import { TRACES, TRACE_ID_TS } from './tables';

/** SQL over `otel_traces` (and its trace-id time-range table). All values are bound. */

export interface SpanRow {
  TraceId: string;
  SpanId: string;
  ParentSpanId: string;
  TraceState: string;
  SpanName: string;
  SpanKind: string;
  ServiceName: string;
  ResourceAttributes: Record<string, string>;
  ScopeName: string;
  ScopeVersion: string;
  SpanAttributes: Record<string, string>;
  StartNs: string;
  Duration: string;
  StatusCode: string;
  StatusMessage: string;
  EventTimesNs: string[];
  EventNames: string[];
  EventAttributes: Record<string, string>[];
  LinkTraceIds: string[];
  LinkSpanIds: string[];
  LinkTraceStates: string[];
  LinkAttributes: Record<string, string>[];
  /** Attribute entries (all maps of the span) past the read limit, not returned. */
  OmittedAttributes: number;
  /** Events and links past the read limit, not returned. */
  OmittedEvents: number;
  OmittedLinks: number;
}

/** DateTime's last second (2106-02-07 06:28:15): the trace-id table saturates there. */
const DATETIME_MAX_S = 4_294_967_295;

/**
 * Which rows hold one trace: the trace-id table narrows the time range first so only the
 * partitions that hold the trace are read. That table keeps seconds as DateTime (1970 to 2106,
 * saturating outside), and a span dated outside that range sits in a partition whose key
 * wrapped (measured: a span of 2201 in partition 20211123), so a time filter would prune it
 * away. For such a trace (stored before ingest refused those times) the filter is the trace
 * id alone, so it is still found. Null: no such trace.
 */
export async function traceFilter(store: Store, traceId: string): Promise<Sql | null> {
  return (await traceScope(store, traceId))?.where ?? null;
}

/** One trace's rows (traceFilter's filter), its span count and a version for answer caches. */
export interface TraceScope {
  where: Sql;
  /** The spans under the filter; counted on first ask (the TraceId column of its granules). */
  spans: () => Promise<number>;
  /**
   * The trace's time bounds from the trace-id table and its span count (that table's rows
   * merge, so their count is no version): a span arriving later for the trace changes it.
   */
  version: () => Promise<string>;
}

/** traceFilter's filter with the trace's span count and version (TraceScope). Null: no such trace. */
export async function traceScope(store: Store, traceId: string): Promise<TraceScope | null> {
  // Without the trace-id table (a Collector's table opened read-only) the range comes from the
  // spans themselves: the exporter's bloom-filter index on TraceId keeps that read short.
  const range = await store.query<{ start: string; end: string; n: string }>(
    store.accelerators.traceIdTs
      ? sql`
    SELECT toString(toUnixTimestamp(min(Start))) AS start, toString(toUnixTimestamp(max(End))) AS end,
      toString(count()) AS n
    FROM ${TRACE_ID_TS} WHERE TraceId = ${traceId}`
      : sql`
    SELECT toString(toUnixTimestamp(min(Timestamp))) AS start,
      toString(toUnixTimestamp(max(Timestamp))) AS end, toString(count()) AS n
    FROM ${TRACES} WHERE TraceId = ${traceId}`,
  );
  const r = range[0];
  if (!r || r.n === '0') return null;
  const startS = Number(r.start);
  const endS = Number(r.end);
  const where =
    startS > 0 && endS < DATETIME_MAX_S
      ? sql`TraceId = ${traceId}
    AND Timestamp >= toDateTime64(${param(startS, 'Int64')}, 9)
    AND Timestamp < toDateTime64(${param(endS + 1, 'Int64')}, 9)`
      : sql`TraceId = ${traceId}`;
  let counted: Promise<number> | undefined;
  const spans = (): Promise<number> =>
    (counted ??= store
      .query<{ n: string }>(sql`SELECT toString(count()) AS n FROM ${TRACES} WHERE ${where}`)
      .then((rows) => Number(rows[0]?.n ?? 0)));
  return {
    where,
    spans,
    version: async () => `${r.start}:${r.end}:${String(await spans())}`,
  };
}

/** How much of one trace a read returns. */
export interface TraceReadLimits {
  /** Spans, earliest first. */
  maxSpans: number;
  /** Entries per attribute map, and events and links per span. */
  maxAttributes: number;
}

/** The first `n` entries of a map, in stored order (a Map is an array of pairs). */
const firstOf = (map: string, n: Sql): Sql =>
  sql`mapFromArrays(arraySlice(mapKeys(${raw(map)}), 1, ${n}), arraySlice(mapValues(${raw(map)}), 1, ${n}))`;

/**
 * The spans of one trace, earliest first, cut to `limits` inside ClickHouse so one huge trace
 * or one span with a million attributes costs a bounded answer (the decode of such a row
 * once held the event loop, and OTLP ingest with it, for seconds). `Omitted*` count what each
 * span's maps, events and links held beyond the limit.
 */
export async function selectTrace(
  store: Store,
  traceId: string,
  limits: TraceReadLimits = { maxSpans: 1_000_000, maxAttributes: 1_000_000 },
): Promise<SpanRow[]> {
  const where = await traceFilter(store, traceId);
  return where ? selectSpanRows(store, where, limits) : [];
}

/** The spans `where` selects (within one trace's filter), cut to `limits` as selectTrace says. */
export function selectSpanRows(
  store: Store,
  where: Sql,
  limits: TraceReadLimits,
): Promise<SpanRow[]> {
  const n = sql`${param(limits.maxAttributes, 'UInt64')}`;
  const sliced = (maps: string): Sql =>
    sql`arrayMap(m -> mapFromArrays(arraySlice(mapKeys(m), 1, ${n}), arraySlice(mapValues(m), 1, ${n})), arraySlice(${raw(maps)}, 1, ${n}))`;
  const eventAttrs = sliced('`Events.Attributes`');
  const linkAttrs = sliced('`Links.Attributes`');
  const over = (count: Sql): Sql => sql`greatest(toInt64(${count}) - ${n}, 0)`;
  // Counted in the inner query: in the outer one the sliced maps' aliases shadow the columns.
  return store.query<SpanRow>(sql`
    SELECT TraceId, SpanId, ParentSpanId, TraceState, SpanName, SpanKind, ServiceName,
      ${firstOf('ResourceAttributes', n)} AS ResourceAttributes, ScopeName, ScopeVersion,
      ${firstOf('SpanAttributes', n)} AS SpanAttributes,
      toString(toUnixTimestamp64Nano(Timestamp)) AS StartNs, toString(Duration) AS Duration,
      StatusCode, StatusMessage,
      arrayMap(t -> toString(toUnixTimestamp64Nano(t)), arraySlice(\`Events.Timestamp\`, 1, ${n})) AS EventTimesNs,
      arraySlice(\`Events.Name\`, 1, ${n}) AS EventNames, ${eventAttrs} AS EventAttributes,
      arraySlice(\`Links.TraceId\`, 1, ${n}) AS LinkTraceIds, arraySlice(\`Links.SpanId\`, 1, ${n}) AS LinkSpanIds,
      arraySlice(\`Links.TraceState\`, 1, ${n}) AS LinkTraceStates, ${linkAttrs} AS LinkAttributes,
      toUInt32(omittedAttributes) AS OmittedAttributes, toUInt32(omittedEvents) AS OmittedEvents,
      toUInt32(omittedLinks) AS OmittedLinks
    FROM (
      SELECT *,
        ${over(sql`length(SpanAttributes)`)} + ${over(sql`length(ResourceAttributes)`)}
          + arraySum(m -> ${over(sql`length(m)`)}, \`Events.Attributes\`)
          + arraySum(m -> ${over(sql`length(m)`)}, \`Links.Attributes\`) AS omittedAttributes,
        ${over(sql`length(\`Events.Name\`)`)} AS omittedEvents,
        ${over(sql`length(\`Links.TraceId\`)`)} AS omittedLinks
      FROM ${TRACES}
      WHERE ${where}
      ORDER BY Timestamp, SpanId
      LIMIT ${param(limits.maxSpans, 'UInt64')}
    )
    ORDER BY Timestamp, SpanId`);
}

/** Spans stored for one trace (what selectTrace would return without its span limit). */
export async function countTraceSpans(store: Store, traceId: string): Promise<number> {
  return (await (await traceScope(store, traceId))?.spans()) ?? 0;
}

export interface StoreStats {
  spans: number;
  traces: number;
  services: number;
  oldestUnixNano: string | null;
  newestUnixNano: string | null;
  /** How far the stored fan-outs and episode series both reach (cache/store-figures.ts). */
  settledUnixNano?: string | null;
}

/** Span times the overview's oldest/newest consider sane: [1970-01-01, 2200-01-01), ns. */
const SANE_TIME_NS = { min: 0n, max: 7_258_118_400_000_000_000n } as const;
/**
 * How far past now a span may be dated and still count for the stored range: a day of clock
 * skew. One span stamped in 2199 moved `newest` 175 years out, so the dashboard's "all time"
 * judged episodes in 281-day windows (issue 25); such a span stays stored and readable by a
 * range that asks for it.
 */
export const FUTURE_SKEW_NS = 86_400_000_000_000n;

/**
 * Counts and the time range of the store. Every span is counted; oldest/newest only look at
 * spans dated 1970 to 2200 and at most FUTURE_SKEW_NS past `nowMs`, so one span stored with a
 * wrapped (negative) or far-future time cannot move the dashboard's range to where no data is.
 *
 * Every dashboard page asks for these first, beside its own data, so they are kept cheap
 * (measured at 10M spans: 550 ms, of which uniqExact over the trace ids 350 ms and the
 * filtered min/max 170 ms, competing with the page's own query on two cores): the span
 * count and the stored range come from the parts' metadata, the services from the primary
 * key's first column, and traces are counted from the trace-id table (one row per trace and
 * insert), or without it by the 64-bit hash of their id (exact unless two ids collide: about 3
 * chances in a million at 10M traces). Only a store holding a time outside the sane range pays
 * the full scan for the bounds.
 */
export async function selectStats(store: Store, nowMs = Date.now()): Promise<StoreStats> {
  const sane = {
    min: SANE_TIME_NS.min,
    max: bigMin(SANE_TIME_NS.max, BigInt(Math.floor(nowMs)) * 1_000_000n + FUTURE_SKEW_NS),
  };
  const [meta, services, traces] = await Promise.all([
    store.query<{ spans: string; lo: string; hi: string }>(sql`
      SELECT toString(count()) AS spans, toString(toUnixTimestamp64Nano(min(Timestamp))) AS lo,
        toString(toUnixTimestamp64Nano(max(Timestamp))) AS hi
      FROM ${TRACES}`),
    store.query<{ n: string }>(
      sql`SELECT toString(count()) AS n FROM (SELECT DISTINCT ServiceName FROM ${TRACES})`,
    ),
    store.query<{ n: string }>(
      store.accelerators.traceIdTs
        ? // One row per trace and insert, not per span (measured on the 1.2M-span preset: 11-21
          // ms against 41 ms warm and 630 ms cold); a trace counts while the spans table still
          // holds its last second (retention drops whole days of spans, this table whole weeks).
          sql`SELECT toString(count()) AS n FROM (
            SELECT TraceId FROM ${TRACE_ID_TS} GROUP BY TraceId
            HAVING max(End) >= toDateTime(least(${DATETIME_MAX_S}, greatest(0, intDiv(
              (SELECT toUnixTimestamp64Nano(min(Timestamp)) FROM ${TRACES}), 1000000000)))))`
        : sql`SELECT toString(uniqExact(cityHash64(TraceId))) AS n FROM ${TRACES}`,
    ),
  ]);
  const m = meta[0];
  const spans = Number(m?.spans ?? 0);
  const counts = {
    spans,
    traces: Number(traces[0]?.n ?? 0),
    services: Number(services[0]?.n ?? 0),
  };
  if (!m || spans === 0) return { ...counts, oldestUnixNano: null, newestUnixNano: null };
  const inside = (v: string): boolean => BigInt(v) >= sane.min && BigInt(v) < sane.max;
  if (inside(m.lo) && inside(m.hi))
    return { ...counts, oldestUnixNano: m.lo, newestUnixNano: m.hi };
  return { ...counts, ...(await saneBounds(store, sane)) };
}

const bigMin = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/** Oldest and newest among the spans dated in [min, max) (a full scan of the times). */
async function saneBounds(
  store: Store,
  bounds: { min: bigint; max: bigint },
): Promise<Pick<StoreStats, 'oldestUnixNano' | 'newestUnixNano'>> {
  const rows = await store.query<{ sane: string; oldest: string; newest: string }>(sql`
    WITH toUnixTimestamp64Nano(Timestamp) AS t,
      t >= ${param(bounds.min.toString(), 'Int64')} AND t < ${param(bounds.max.toString(), 'Int64')} AS ok
    SELECT toString(countIf(ok)) AS sane, toString(minIf(t, ok)) AS oldest, toString(maxIf(t, ok)) AS newest
    FROM ${TRACES}`);
  const r = rows[0];
  const sane = r !== undefined && r.sane !== '0';
  return { oldestUnixNano: sane ? r.oldest : null, newestUnixNano: sane ? r.newest : null };
}

/** Earliest and latest span start stored, epoch ns; null when the store holds no span. */
export interface StoredBounds {
  minNs: bigint;
  maxNs: bigint;
}

/**
 * The time range the store holds. Answered from the parts' min/max index of the partition key
 * column (ClickHouse's `_minmax_count_projection`), so it reads no rows whatever the store's
 * size: cheap enough to run before every analysis query.
 */
export async function selectStoredBounds(store: Store): Promise<StoredBounds | null> {
  const rows = await store.query<{ n: string; lo: string; hi: string }>(sql`
    SELECT toString(count()) AS n, toString(toUnixTimestamp64Nano(min(Timestamp))) AS lo,
      toString(toUnixTimestamp64Nano(max(Timestamp))) AS hi
    FROM ${TRACES}`);
  const r = rows[0];
  if (!r || r.n === '0') return null;
  return { minNs: BigInt(r.lo), maxNs: BigInt(r.hi) };
}
