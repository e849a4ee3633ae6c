import {
  ABSENT_ATTRIBUTE,
  BACKGROUND_KEY,
  BACKGROUND_LOOKBACK_NS,
  CLIENT_KINDS,
  EDGE_SLACK_NS,
  HOST_KEYS,
  NO_BACKGROUND,
  PEER_SERVICE_KEY,
  SERVER_ADDRESS_KEY,
  SERVER_KINDS,
  SHARING_MODE_KEY,
  UNKNOWN_HOST,
  UNKNOWN_MODE,
  type LeafCalls,
  type WidthCount,
} from '@tailscope/analysis';
import type { Store } from './client';
import { join, param, raw, sql, type Sql } from './sql';
import { leafCallsFromRowBinary } from './fanouts-binary';

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

const ns = (v: bigint): Sql => sql`${param(v.toString(), 'Int64')}`;

function inWindow(lo: bigint, hi: bigint): Sql {
  return sql`Timestamp >= fromUnixTimestamp64Nano(${ns(lo)}) AND Timestamp < fromUnixTimestamp64Nano(${ns(hi)})`;
}

const kinds = (list: readonly string[]): Sql =>
  sql`SpanKind IN (${join(
    list.map((k) => sql`${k}`),
    ', ',
  )})`;

/** The host of a resource map by the HOST_KEYS chain, '' when none is set. */
function hostOf(map: string): Sql {
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

/** Background windows are looked up per (host, 10 s bucket) of the call's start and end. */
const BUCKET_NS = 10_000_000_000n;

/** Adds `bg` to each call: the alphabetically first overlapping background kind, else 'none'. */
export function withBackground(s: FanoutScope, calls: Sql): Sql {
  const win = inWindow(s.fromNs - BACKGROUND_LOOKBACK_NS, s.toNs + EDGE_SLACK_NS);
  const bucket = ns(BUCKET_NS);
  const windows = sql`
    SELECT bhost, bucket, groupArray((bstart, bend, kind)) AS wins FROM (
      SELECT if(h != '', h, ${UNKNOWN_HOST}) AS bhost, toUnixTimestamp64Nano(Timestamp) AS bstart,
        bstart + toInt64(Duration) AS bend, SpanAttributes[${BACKGROUND_KEY}] AS kind,
        arrayJoin(range(intDiv(bstart, ${bucket}), intDiv(bend, ${bucket}) + 1)) AS bucket,
        ${hostOf('ResourceAttributes')} AS h
      FROM otel_traces
      WHERE ${win} AND mapContains(SpanAttributes, ${BACKGROUND_KEY}) AND SpanAttributes[${BACKGROUND_KEY}] != ''
    ) GROUP BY bhost, bucket`;
  return sql`
    SELECT k.*, if(bgk != '', bgk, ${NO_BACKGROUND}) AS bg FROM (
      SELECT c.*, arrayReduce('min', arrayMap(w -> w.3, arrayFilter(
          w -> w.1 < c.startNs + c.durNs AND c.startNs < w.2, arrayConcat(b1.wins, b2.wins)))) AS bgk
      FROM (${calls}) AS c
      LEFT JOIN (${windows}) AS b1 ON b1.bhost = c.host AND b1.bucket = intDiv(c.startNs, ${bucket})
      LEFT JOIN (${windows}) AS b2 ON b2.bhost = c.host
        AND b2.bucket = if(intDiv(c.startNs + c.durNs, ${bucket}) != intDiv(c.startNs, ${bucket}), intDiv(c.startNs + c.durNs, ${bucket}), -1)
    ) AS k`;
}

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
  return sql`
    SELECT fk, leafService, leafOperation, any(tid) AS tid, any(pid) AS pid,
      arraySort(x -> (x.1, x.2), groupArray((${raw(fields)}))) AS cs0,
      arrayMap(x -> x.1, cs0) AS ss, arrayMap(x -> x.1 + x.2, cs0) AS ee,
      if(length(cs0) < 2 OR arrayMax(ss) <= arrayMin(ee), cs0, arrayFilter((x, keep) -> keep, cs0,
        arrayMap((i, endsBefore) -> endsBefore < i - 1 OR (i < length(ss) AND ss[i + 1] <= ee[i]),
          arrayEnumerate(ss),
          arrayFilter((cnt, v) -> v.2 = 0, arrayCumSum(arrayMap(v -> v.2, ev)),
            arraySort(arrayConcat(arrayMap(t -> (t, 0), ss), arrayMap(t -> (t, 1), ee))) AS ev)))) AS kept,
      length(kept) AS n, kept[1].1 AS s0
    FROM (${calls})
    GROUP BY fk, leafService, leafOperation
    HAVING n >= 2 AND s0 >= ${ns(s.fromNs)} AND s0 < ${ns(s.toNs)}`;
}

/** What loadLeafCalls returns besides the calls. */
export interface LoadedLeafCalls {
  calls: LeafCalls;
  /** More fan-outs matched than `maxFanouts`: a uniform sample (by fan-out key hash) was kept. */
  sampled: boolean;
}

/**
 * The LeafCalls of one leaf operation (all parents) whose fan-outs start in [from, to), with
 * host, sharing mode, background and the asked attribute columns, as one RowBinary row of
 * column arrays (no per-call JSON). At most `maxFanouts` fan-outs: when more match, those with
 * the smallest cityHash64 of their key are kept (a deterministic uniform sample).
 */
export async function loadLeafCalls(
  store: Store,
  scope: FanoutScope & { leafService: string; leafOperation: string },
  opts: { attributeKeys?: readonly string[]; maxFanouts?: number } = {},
): Promise<LoadedLeafCalls> {
  const keys = opts.attributeKeys ?? [];
  const max = opts.maxFanouts ?? 200_000;
  const calls = withBackground(scope, callsSql(scope, { attributeKeys: keys }));
  const fields = ['startNs', 'durNs', 'host', 'mode', 'bg', ...keys.map((_, i) => `a${i}`)].join(
    ', ',
  );
  const flat = (expr: string): Sql =>
    raw(`arrayFlatten(arrayMap(x -> arrayMap(c -> ${expr}, x.4), fs))`);
  const dict = (name: string, expr: string, first: Sql | null): Sql => {
    const all = first ? sql`arrayConcat([${first}], ${flat(expr)})` : flat(expr);
    return sql`, arrayMap(i -> toUInt32(i - 1), ${first ? raw('arrayPopFront(') : raw('(')}arrayEnumerateDense(${all}))) AS ${raw(name)},
      arrayFilter((h, u) -> u = 1, ${all}, arrayEnumerateUniq(${all})) AS ${raw(name)}Dict`;
  };
  const attrCols = keys.map((_, i) => dict(`a${i}`, `c.${i + 6}`, null));
  const q = sql`
    SELECT toUInt32(count()) AS fanouts, toUInt32(any(total)) AS matched,
      arraySort(x -> (x.1, x.2, x.3), groupArray((s0, tid, pid, kept))) AS fs,
      arrayMap(x -> x.2, fs) AS traceIds, arrayMap(x -> x.3, fs) AS parentSpanIds,
      arrayMap(x -> toFloat64(x.1) / 1e6, fs) AS fanoutStartMs,
      arrayMap(x -> toUInt32(length(x.4)), fs) AS widths,
      arrayFlatten(arrayMap(x -> arrayMap(c -> toFloat64(c.1 - x.1) / 1e6, x.4), fs)) AS startMs,
      ${flat('toFloat64(c.2) / 1e6')} AS durationMs
      ${dict('host', 'c.3', null)} ${dict('mode', 'c.4', null)} ${dict('background', 'c.5', sql`${NO_BACKGROUND}`)}
      ${join(attrCols, ' ')}
    FROM (
      SELECT s0, tid, pid, kept, count() OVER () AS total FROM (${fanoutsSql(scope, calls, fields)})
      ORDER BY cityHash64(fk) LIMIT ${max}
    )`;
  const columns = [
    'fanouts',
    'matched',
    'traceIds',
    'parentSpanIds',
    'fanoutStartMs',
    'widths',
    'startMs',
    'durationMs',
    'host',
    'hostDict',
    'mode',
    'modeDict',
    'background',
    'backgroundDict',
    ...keys.flatMap((_, i) => [`a${i}`, `a${i}Dict`]),
  ];
  const select = sql`SELECT ${raw(columns.join(', '))} FROM (${q})`;
  const bytes = await execBytes(store, select);
  return leafCallsFromRowBinary(bytes, keys);
}

/** Runs a query and returns its RowBinary body as bytes (works over HTTP and with chDB). */
export async function execBytes(store: Store, q: Sql): Promise<Buffer> {
  const rs = await store.client.exec({
    query: `${q.text}\nFORMAT RowBinary`,
    query_params: q.params,
  });
  const chunks: Buffer[] = [];
  for await (const chunk of rs.stream as AsyncIterable<Buffer | string>) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
  }
  return Buffer.concat(chunks);
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
  opts: { thresholdMs?: number | undefined; seed?: number } = {},
): Promise<FanoutOperationRow[]> {
  const seed = (opts.seed ?? 1) >>> 0;
  const fan = fanoutsSql(scope, callsSql(scope, null), 'startNs, durNs');
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
      arrayFilter(i -> i = length(ws) OR ws[i] != ws[i + 1], arrayEnumerate(ws)) AS lastIdx,
      arrayCumSum(arrayMap(x -> toUInt32(x.2 > thresholdMs), pf)) AS cumTail,
      arrayMap(i -> ws[i], lastIdx) AS hw,
      arrayMap((i, j) -> toUInt32(i - j), lastIdx, arrayPushFront(arrayPopBack(lastIdx), 0)) AS hc,
      arrayMap((i, j) -> toUInt32(cumTail[i] - if(j = 0, 0, cumTail[j])), lastIdx, arrayPushFront(arrayPopBack(lastIdx), 0)) AS ht
    FROM (
      SELECT parentService, parentOperation, leafService, leafOperation, toUInt32(count()) AS requests,
        quantileExactInclusive(0.5)(n) AS widthP50, toUInt32(max(n)) AS widthMax,
        quantilesExactInclusive(0.5, 0.95, 0.99, 0.999)(oneLeaf) AS oneLeaf,
        quantilesExactInclusive(0.5, 0.95, 0.99, 0.999)(p95Leaf) AS p95Leaves,
        quantilesExactInclusive(0.5, 0.95, 0.99, 0.999)(allLeaf) AS allLeaves,
        quantileExactInclusiveArray(0.99)(dms) AS callP99, groupArrayArray(dms) AS durs,
        groupArray((toUInt32(n), allLeaf)) AS perFan
      FROM (
        SELECT p.ServiceName AS parentService, p.SpanName AS parentOperation, f.leafService AS leafService,
          f.leafOperation AS leafOperation, f.n AS n,
          arraySort(arrayMap(c -> toFloat64(c.1 - f.s0) / 1e6 + toFloat64(c.2) / 1e6, f.kept)) AS fin,
          arrayMap(c -> toFloat64(c.2) / 1e6, f.kept) AS dms,
          fin[intDiv(toUInt64(murmurHash3_32(concat(toString(${param(seed, 'UInt32')}), ':', f.tid, ':', f.pid))) * f.n, 4294967296) + 1] AS oneLeaf,
          fin[intDiv(95 * f.n + 99, 100)] AS p95Leaf, fin[f.n] AS allLeaf
        FROM (
          SELECT cityHash64(TraceId, SpanId) AS k, ServiceName, SpanName FROM otel_traces
          WHERE ${inWindow(scope.fromNs - EDGE_SLACK_NS, scope.toNs + EDGE_SLACK_NS)}
        ) AS p
        RIGHT JOIN (${fan}) AS f ON p.k = f.fk
      )
      ${parentFilter}
      GROUP BY parentService, parentOperation, leafService, leafOperation
    )
    ORDER BY requests DESC, parentService, parentOperation, leafService, leafOperation`);
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
): Promise<HostWindowRow[]> {
  const fan = fanoutsSql(
    scope,
    callsSql(scope, { attributeKeys: [] }),
    'startNs, durNs, host, mode',
  );
  const w = param(windowMs, 'Float64');
  return store.query<HostWindowRow>(sql`
    SELECT host, if(isNull(host), NULL, any(mode)) AS mode, wi * ${w} AS startMs, toUInt32(count()) AS calls,
      quantileExactInclusive(0.5)(d) AS p50Ms, quantileExactInclusive(0.99)(d) AS p99Ms, max(d) AS maxMs
    FROM (
      SELECT arrayJoin(arrayMap(c -> (c.3, c.4,
          floor((toFloat64(s0) / 1e6 + toFloat64(c.1 - s0) / 1e6) / ${w}), toFloat64(c.2) / 1e6), kept)) AS x,
        x.1 AS host, x.2 AS mode, x.3 AS wi, x.4 AS d
      FROM (${fan})
    )
    GROUP BY GROUPING SETS ((host, wi), (wi))
    ORDER BY isNull(host), host, wi
    SETTINGS group_by_use_nulls = 1`);
}
