import {
  ABSENT_ATTRIBUTE,
  CLIENT_KINDS,
  EDGE_SLACK_NS,
  HOST_KEYS,
  PEER_SERVICE_KEY,
  SERVER_ADDRESS_KEY,
  SERVER_KINDS,
  SHARING_MODE_KEY,
  UNKNOWN_HOST,
  UNKNOWN_MODE,
  type WidthCount,
} from '@tailscope/analysis';
import type { Store } from './client';
import { join, param, raw, sql, type Sql } from './sql';
import { cachedArrays, cachedFans, coverage } from './fanouts-cache';

/**
 * SQL over `otel_traces` that finds fan-outs and reads their leaf calls (DESIGN.md
 * "Definitions"). The heavy work runs in ClickHouse: pairing CLIENT spans with their SERVER
 * children (a hash join on 64-bit keys), grouping calls per (parent, leaf operation), the
 * overlap test, per-fan-out order statistics and the quantiles across fan-outs; only small
 * per-operation rows, or one compact binary row of leaf-call columns, come back.
 * `@tailscope/analysis` `detectFanouts` is the TypeScript reference these queries are tested
 * against; conventions (host keys, defaults) come from the same constants.
 */

/** Which spans to read: calls whose fan-out starts in [fromNs, toNs). */
export interface FanoutScope {
  fromNs: bigint;
  toNs: bigint;
  leafService?: string | undefined;
  leafOperation?: string | undefined;
  parentService?: string | undefined;
}

export const ns = (v: bigint): Sql => sql`${param(v.toString(), 'Int64')}`;

export function inWindow(lo: bigint, hi: bigint): Sql {
  return sql`Timestamp >= fromUnixTimestamp64Nano(${ns(lo)}) AND Timestamp < fromUnixTimestamp64Nano(${ns(hi)})`;
}

const kinds = (list: readonly string[]): Sql =>
  sql`SpanKind IN (${join(
    list.map((k) => sql`${k}`),
    ', ',
  )})`;

/** The host of a resource map by the HOST_KEYS chain, '' when none is set. */
export function hostOf(map: string): Sql {
  const parts = HOST_KEYS.map((k) => sql`${raw(map)}[${k}] != '', ${raw(map)}[${k}]`);
  return sql`multiIf(${join(parts, ', ')}, '')`;
}

/** Per-call columns beyond timing: host, mode and attribute values (`dims`). */
export interface CallDims {
  attributeKeys: readonly string[];
}

/**
 * One row per leaf call: fk (fan-out key), tid, pid, leafService, leafOperation, startNs,
 * durNs, and with `dims` also host, mode, a0..ak. A FULL JOIN of CLIENT spans with SERVER
 * spans on (trace, client span id) = (trace, server parent id): matched rows are CLIENT->SERVER
 * calls, left-only rows CLIENT calls without SERVER span, right-only rows SERVER spans whose
 * parent is not a CLIENT span (direct children).
 */
export function callsSql(s: FanoutScope, dims: CallDims | null): Sql {
  const win = inWindow(s.fromNs - EDGE_SLACK_NS, s.toNs + EDGE_SLACK_NS);
  const keys = dims?.attributeKeys ?? [];
  const srvAttrs = keys.map(
    (k, i) =>
      sql`, if(SpanAttributes[${k}] != '', SpanAttributes[${k}], ResourceAttributes[${k}]) AS sa${raw(String(i))}`,
  );
  const cliAttrs = keys.map(
    (k, i) =>
      sql`, if(SpanAttributes[${k}] != '', SpanAttributes[${k}], ResourceAttributes[${k}]) AS ca${raw(String(i))}`,
  );
  const srvDims = dims
    ? sql`, ${hostOf('ResourceAttributes')} AS shost, ResourceAttributes[${SHARING_MODE_KEY}] AS smode ${join(srvAttrs, ' ')}`
    : raw('');
  const cliDims = dims ? join(cliAttrs, ' ') : raw('');
  const callAttrs = keys.map(
    (_, i) =>
      sql`, multiIf(sp = 1 AND sa${raw(String(i))} != '', sa${raw(String(i))}, cp = 1 AND ca${raw(String(i))} != '', ca${raw(String(i))}, ${ABSENT_ATTRIBUTE}) AS a${raw(String(i))}`,
  );
  const callDims = dims
    ? sql`, if(sp = 1, if(shost != '', shost, ${UNKNOWN_HOST}), if(addr != '', addr, ${UNKNOWN_HOST})) AS host,
        if(sp = 1 AND smode != '', smode, ${UNKNOWN_MODE}) AS mode ${join(callAttrs, ' ')}`
    : raw('');
  const srvFilter =
    s.leafService !== undefined ? sql` AND ServiceName = ${s.leafService}` : raw('');
  const opFilter = join(
    [
      ...(s.leafService !== undefined ? [sql`leafService = ${s.leafService}`] : []),
      ...(s.leafOperation !== undefined ? [sql`leafOperation = ${s.leafOperation}`] : []),
    ].map((f) => sql` AND ${f}`),
    '',
  );
  return sql`
    SELECT if(cp = 1, cfk, pk) AS fk, if(cp = 1, ctid, stid) AS tid, if(cp = 1, cpid, spid) AS pid,
      if(sp = 1, ssvc, if(peer != '', peer, addr)) AS leafService,
      if(sp = 1, sop, cop) AS leafOperation,
      if(cp = 1, cstart, sstart) AS startNs, if(cp = 1, cdur, sdur) AS durNs ${callDims}
    FROM (
      SELECT cityHash64(TraceId, SpanId) AS ck, toUInt8(1) AS cp, cityHash64(TraceId, ParentSpanId) AS cfk,
        TraceId AS ctid, ParentSpanId AS cpid, SpanName AS cop,
        toUnixTimestamp64Nano(Timestamp) AS cstart, toInt64(Duration) AS cdur,
        SpanAttributes[${PEER_SERVICE_KEY}] AS peer, SpanAttributes[${SERVER_ADDRESS_KEY}] AS addr ${cliDims}
      FROM otel_traces WHERE ${win} AND ${kinds(CLIENT_KINDS)}
    ) AS c
    FULL OUTER JOIN (
      SELECT cityHash64(TraceId, ParentSpanId) AS pk, toUInt8(1) AS sp, TraceId AS stid, ParentSpanId AS spid,
        ServiceName AS ssvc, SpanName AS sop,
        toUnixTimestamp64Nano(Timestamp) AS sstart, toInt64(Duration) AS sdur ${srvDims}
      FROM otel_traces WHERE ${win} AND ${kinds(SERVER_KINDS)}${srvFilter}
    ) AS s ON c.ck = s.pk
    WHERE pid != '' ${opFilter}`;
}

/**
 * Settings of every query here: the parallel hash join (both cores build the CLIENT/SERVER
 * table) measured ~25% less CPU than the default choice on 1M calls.
 */
export const JOIN_SETTINGS = "join_algorithm = 'parallel_hash'";

/**
 * Groups calls into fan-outs: per (fk, leafService, leafOperation), the calls as tuples
 * `fields` sorted by (start, duration), keeping those whose closed interval [start, end] meets
 * another's. With calls sorted by start, call i meets an earlier one iff fewer than i - 1 calls
 * ended strictly before it started (counted on one merged, sorted list of starts and ends), and
 * a later one iff the next call starts no later than it ends. A group is a fan-out with >= 2
 * kept calls and its first start in [from, to). Columns: fk, tid, pid, leafService,
 * leafOperation, kept (tuples: 1 startNs, 2 durNs, then the rest of `fields`), n, s0.
 */
export function fanoutsSql(s: FanoutScope, calls: Sql, fields: string): Sql {
  // With the leaf operation fixed, every call already has it: the fan-out key alone groups.
  const oneLeaf = s.leafService !== undefined && s.leafOperation !== undefined;
  const names = oneLeaf
    ? raw('any(leafService) AS leafService, any(leafOperation) AS leafOperation')
    : raw('leafService, leafOperation');
  return sql`
    SELECT fk, ${names}, any(tid) AS tid, any(pid) AS pid,
      arraySort(groupArray((${raw(fields)}))) AS cs0,
      arrayMap(x -> x.1, cs0) AS ss, arrayMap(x -> x.1 + x.2, cs0) AS ee,
      if(length(cs0) < 2 OR arrayMax(ss) <= arrayMin(ee), cs0, arrayFilter((x, keep) -> keep, cs0,
        arrayMap((i, endsBefore, e, nextStart) -> endsBefore < i - 1 OR nextStart <= e,
          arrayEnumerate(ss),
          arrayFilter((cnt, v) -> v.2 = 0, arrayCumSum(arrayMap(v -> v.2, ev)),
            arraySort(arrayConcat(arrayMap(t -> (t, 0), ss), arrayMap(t -> (t, 1), ee))) AS ev),
          ee,
          arrayPushBack(arrayPopFront(ss), toInt64(9223372036854775807))))) AS kept,
      length(kept) AS n, kept[1].1 AS s0
    FROM (${calls})
    GROUP BY fk ${oneLeaf ? raw('') : raw(', leafService, leafOperation')}
    HAVING n >= 2 AND s0 >= ${ns(s.fromNs)} AND s0 < ${ns(s.toNs)}`;
}

/**
 * Fan-outs detected now, with their parent's names: fk, leafService, leafOperation,
 * parentService, parentOperation, tid, pid, n, s0, kept (tuples: startNs, durNs). The parent is
 * looked up by (trace, span id) among the spans of the range plus margin; a missing parent
 * leaves the names empty.
 */
export function liveNamedFans(scope: FanoutScope): Sql {
  const fan = fanoutsSql(scope, callsSql(scope, null), 'startNs, durNs');
  return sql`
    SELECT f.fk AS fk, f.leafService AS leafService, f.leafOperation AS leafOperation,
      p.ServiceName AS parentService, p.SpanName AS parentOperation, f.tid AS tid, f.pid AS pid,
      f.n AS n, f.s0 AS s0, f.kept AS kept
    FROM (
      SELECT cityHash64(TraceId, SpanId) AS k, ServiceName, SpanName FROM otel_traces
      WHERE ${inWindow(scope.fromNs - EDGE_SLACK_NS, scope.toNs + EDGE_SLACK_NS)}
    ) AS p
    RIGHT JOIN (${fan}) AS f ON p.k = f.fk`;
}

/**
 * Fan-out rows for a query (fk, leafService, leafOperation, tid, pid, n, s0, kept, and with
 * `parents` parentService, parentOperation): the stored chunks that cover the start of the
 * range (see fanouts-cache.ts), then live detection from where they stop, as one UNION ALL.
 * `dims` adds host, mode and attribute values to `kept`; attributes are never stored, so asking
 * for them detects live over the whole range.
 */
export async function fanSource(
  store: Store,
  scope: FanoutScope,
  o: { parents?: boolean; dims?: readonly string[]; arrays?: boolean; cache: boolean },
): Promise<Sql> {
  const dims = o.dims !== undefined;
  const keys = o.dims ?? [];
  const canCache = o.cache && keys.length === 0;
  const cov = canCache ? await coverage(store, scope) : { splitNs: scope.fromNs, chunks: [] };
  const live: FanoutScope = { ...scope, fromNs: cov.splitNs };
  const fields = [
    'startNs',
    'durNs',
    ...(dims ? ['host', 'mode'] : []),
    ...keys.map((_, i) => `a${i}`),
  ].join(', ');
  const liveSql = o.parents
    ? liveNamedFans(live)
    : fanoutsSql(live, callsSql(live, dims ? { attributeKeys: keys } : null), fields);
  // `arrays`: per-call columns as arrays (sts, dus, hs, ms, v0..) instead of `kept` tuples.
  const cols = o.arrays
    ? raw('fk, tid, pid, n, s0, sts, dus, hs, ms' + keys.map((_, i) => `, v${i}`).join(''))
    : raw(
        `fk, leafService, leafOperation, tid, pid, n, s0, kept${o.parents ? ', parentService, parentOperation' : ''}`,
      );
  const fromKept = o.arrays
    ? raw(
        ', arrayMap(c -> c.1, kept) AS sts, arrayMap(c -> c.2, kept) AS dus, arrayMap(c -> c.3, kept) AS hs, arrayMap(c -> c.4, kept) AS ms' +
          keys.map((_, i) => `, arrayMap(c -> c.${i + 5}, kept) AS v${i}`).join(''),
      )
    : raw('');
  const liveRows = sql`SELECT ${cols} FROM (SELECT *${fromKept} FROM (${liveSql}))`;
  if (cov.chunks.length === 0) return liveRows;
  const stored = o.arrays
    ? sql`SELECT ${cols} FROM (${cachedArrays(scope, cov)})`
    : sql`SELECT ${cols} FROM (${cachedFans(scope, cov, dims)})`;
  if (cov.splitNs >= scope.toNs) return stored;
  return sql`${stored} UNION ALL ${liveRows}`;
}

/** One fan-out operation as the SQL aggregates it; Table 1 and the amplification inputs. */
export interface FanoutOperationRow {
  parentService: string;
  parentOperation: string;
  leafService: string;
  leafOperation: string;
  requests: number;
  widthP50: number;
  widthMax: number;
  /** p50, p95, p99, p99.9 across fan-outs, ms. */
  oneLeaf: number[];
  p95Leaves: number[];
  allLeaves: number[];
  thresholdMs: number;
  /** Calls with latency <= threshold, and all calls: F(t) = callsAtMost / calls. */
  callsAtMost: number;
  calls: number;
  widths: WidthCount[];
}

/**
 * Every fan-out operation in scope with Table 1 quantiles (type 7, ClickHouse
 * quantileExactInclusive), the single-call p99 (or `thresholdMs`), F(t) counts and the width
 * histogram with tail counts, ordered by requests (descending). `seed` picks the random leaf
 * (murmurHash3_32 of `${seed}:${traceId}:${parentSpanId}`, as `fanoutPickHashes`).
 */
export async function selectFanoutOperations(
  store: Store,
  scope: FanoutScope,
  opts: { thresholdMs?: number | undefined; seed?: number; cache?: boolean } = {},
): Promise<FanoutOperationRow[]> {
  const seed = (opts.seed ?? 1) >>> 0;
  const named = await fanSource(store, scope, { parents: true, cache: opts.cache ?? true });
  const parentFilter =
    scope.parentService !== undefined ? sql`WHERE parentService = ${scope.parentService}` : raw('');
  const threshold =
    opts.thresholdMs !== undefined ? sql`${param(opts.thresholdMs, 'Float64')}` : raw('callP99');
  const rows = await store.query<
    Omit<FanoutOperationRow, 'widths'> & { hw: number[]; hc: number[]; ht: number[] }
  >(sql`
    SELECT parentService, parentOperation, leafService, leafOperation, requests, widthP50, widthMax,
      oneLeaf, p95Leaves, allLeaves, ${threshold} AS thresholdMs,
      toUInt32(arrayCount(d -> d <= thresholdMs, durs)) AS callsAtMost, toUInt32(length(durs)) AS calls,
      arraySort(x -> x.1, perFan) AS pf, arrayMap(x -> x.1, pf) AS ws,
      arrayMap((w, next) -> w != next, ws, arrayPushBack(arrayPopFront(ws), toUInt32(0))) AS isLast,
      arrayFilter((w, last) -> last, ws, isLast) AS hw,
      arrayPopFront(arrayDifference(arrayPushFront(arrayFilter((i, last) -> last, arrayEnumerate(ws), isLast), 0))) AS hcRaw,
      arrayMap(c -> toUInt32(c), hcRaw) AS hc,
      arrayMap(c -> toUInt32(c), arrayPopFront(arrayDifference(arrayPushFront(arrayFilter((c, last) -> last,
        arrayCumSum(arrayMap(x -> toUInt32(x.2 > thresholdMs), pf)), isLast), 0)))) AS ht
    FROM (
      SELECT parentService, parentOperation, leafService, leafOperation, toUInt32(count()) AS requests,
        quantileExactInclusive(0.5)(n) AS widthP50, toUInt32(max(n)) AS widthMax,
        quantilesExactInclusive(0.5, 0.95, 0.99, 0.999)(oneLeaf) AS oneLeaf,
        quantilesExactInclusive(0.5, 0.95, 0.99, 0.999)(p95Leaf) AS p95Leaves,
        quantilesExactInclusive(0.5, 0.95, 0.99, 0.999)(allLeaf) AS allLeaves,
        quantileExactInclusiveArray(0.99)(dms) AS callP99, groupArrayArray(dms) AS durs,
        groupArray((toUInt32(n), allLeaf)) AS perFan
      FROM (
        SELECT f.parentService AS parentService, f.parentOperation AS parentOperation, f.leafService AS leafService,
          f.leafOperation AS leafOperation, f.n AS n,
          arraySort(arrayMap(c -> toFloat64(c.1 - f.s0) / 1e6 + toFloat64(c.2) / 1e6, f.kept)) AS fin,
          arrayMap(c -> toFloat64(c.2) / 1e6, f.kept) AS dms,
          fin[intDiv(toUInt64(murmurHash3_32(concat(toString(${param(seed, 'UInt32')}), ':', f.tid, ':', f.pid))) * f.n, 4294967296) + 1] AS oneLeaf,
          fin[intDiv(95 * f.n + 99, 100)] AS p95Leaf, fin[f.n] AS allLeaf
        FROM (${named}) AS f
      )
      ${parentFilter}
      GROUP BY parentService, parentOperation, leafService, leafOperation
    )
    ORDER BY requests DESC, parentService, parentOperation, leafService, leafOperation
    SETTINGS ${raw(JOIN_SETTINGS)}`);
  return rows.map((r) => ({
    parentService: r.parentService,
    parentOperation: r.parentOperation,
    leafService: r.leafService,
    leafOperation: r.leafOperation,
    requests: r.requests,
    widthP50: r.widthP50,
    widthMax: r.widthMax,
    oneLeaf: r.oneLeaf,
    p95Leaves: r.p95Leaves,
    allLeaves: r.allLeaves,
    thresholdMs: r.thresholdMs,
    callsAtMost: r.callsAtMost,
    calls: r.calls,
    widths: r.hw.map((width, i) => ({ width, fanouts: r.hc[i] ?? 0, tailFanouts: r.ht[i] ?? 0 })),
  }));
}

/** One (host, window) cell, or the fleet's (host null) cell of a window; ms. */
export interface HostWindowRow {
  host: string | null;
  /** The host's sharing mode in the window (alphabetically first if several known), else 'unknown'. */
  mode: string | null;
  startMs: number;
  calls: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * Per-host and fleet latency per time window for the calls of one leaf operation's fan-outs:
 * calls, type-7 p50/p99 and max of the call latency, windows aligned to the epoch, a call in the
 * window of its start. Sorted by host (fleet last), then window.
 */
export async function selectHostWindows(
  store: Store,
  scope: FanoutScope & { leafService: string; leafOperation: string },
  windowMs: number,
  opts: { cache?: boolean } = {},
): Promise<HostWindowRow[]> {
  const fan = await fanSource(store, scope, { dims: [], cache: opts.cache ?? true });
  const w = param(windowMs, 'Float64');
  return store.query<HostWindowRow>(sql`
    SELECT host, if(isNull(host), NULL, if(countIf(mode != ${UNKNOWN_MODE}) > 0, minIf(mode, mode != ${UNKNOWN_MODE}), ${UNKNOWN_MODE})) AS mode, wi * ${w} AS startMs, toUInt32(count()) AS calls,
      quantileExactInclusive(0.5)(d) AS p50Ms, quantileExactInclusive(0.99)(d) AS p99Ms, max(d) AS maxMs
    FROM (
      SELECT arrayJoin(arrayMap(c -> (c.3, c.4,
          floor((toFloat64(s0) / 1e6 + toFloat64(c.1 - s0) / 1e6) / ${w}), toFloat64(c.2) / 1e6), kept)) AS x,
        x.1 AS host, x.2 AS mode, x.3 AS wi, x.4 AS d
      FROM (${fan})
    )
    GROUP BY GROUPING SETS ((host, wi), (wi))
    ORDER BY isNull(host), host, wi
    SETTINGS group_by_use_nulls = 1, ${raw(JOIN_SETTINGS)}`);
}

// Loading leaf calls lives in its own module; callers import it from here.
export { loadLeafCalls, execBytes, type LoadedLeafCalls } from './fanouts-leaves';
export {
  materializeFanouts,
  cacheCovers,
  coverage,
  startFanoutMaterializer,
} from './fanouts-cache';
