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
} from '@tailscope/analysis';
import { join, param, raw, sql, type Sql } from './sql';
import { TRACES } from './tables';

/**
 * Live fan-out detection over `otel_traces` as pure SQL builders (DESIGN.md "Definitions"):
 * pairing CLIENT spans with their SERVER children (a hash join on 64-bit keys), grouping calls
 * per (parent, leaf operation), and the overlap test. Each step is a named CTE; the queries of
 * fanouts-queries.ts read the last one. `@tailscope/analysis` `detectFanouts` is the TypeScript
 * reference these queries are tested against; conventions come from the same constants.
 */

/** Which spans to read: calls whose fan-out starts in [fromNs, toNs). */
export interface FanoutScope {
  fromNs: bigint;
  toNs: bigint;
  leafService?: string | undefined;
  leafOperation?: string | undefined;
  parentService?: string | undefined;
}

/** A named step of a query: `name AS (body)` in its WITH clause. */
export interface Cte {
  name: string;
  body: Sql;
}

/** `WITH a AS (...), b AS (...) main`, each CTE body indented under its name. */
export function withCtes(ctes: readonly Cte[], main: Sql): Sql {
  if (ctes.length === 0) return main;
  const steps = ctes.map((c) => sql`${raw(c.name)} AS (${c.body}\n)`);
  return sql`WITH\n${join(steps, ',\n')}\n${main}`;
}

/** A nanosecond time, bound as Int64 (a bigint's decimal string: no float rounding). */
export const ns = (v: bigint): Sql => sql`${param(v.toString(), 'Int64')}`;

export function inWindow(lo: bigint, hi: bigint): Sql {
  return sql`Timestamp >= fromUnixTimestamp64Nano(${ns(lo)}) AND Timestamp < fromUnixTimestamp64Nano(${ns(hi)})`;
}

/** Spans of the scope plus the edge margin on both sides (a fan-out's calls may straddle it). */
const scopeWindow = (s: FanoutScope): Sql =>
  inWindow(s.fromNs - EDGE_SLACK_NS, s.toNs + EDGE_SLACK_NS);

const kindIn = (list: readonly string[]): Sql =>
  sql`SpanKind IN (${join(
    list.map((k) => sql`${k}`),
    ', ',
  )})`;

/** The host of a resource map by the HOST_KEYS chain, '' when none is set. */
export function hostOf(map: string): Sql {
  const parts = HOST_KEYS.map((k) => sql`${raw(map)}[${k}] != '', ${raw(map)}[${k}]`);
  return sql`multiIf(${join(parts, ', ')}, '')`;
}

/**
 * Settings of every fan-out query: the parallel hash join (both cores build the CLIENT/SERVER
 * table) measured ~25% less CPU than the default choice on 1M calls.
 */
export const JOIN_SETTINGS = raw("join_algorithm = 'parallel_hash'");

/**
 * What each detected call carries in `keptCalls`: `'timing'` is the tuple (startNs, durationNs);
 * `{ attributeKeys }` is (startNs, durationNs, host, mode, attr0, ..., attrK) with one value per
 * asked attribute key (span attribute, else resource attribute, else ABSENT_ATTRIBUTE).
 */
export type CallColumns = 'timing' | { readonly attributeKeys: readonly string[] };

const attributeKeysOf = (c: CallColumns): readonly string[] =>
  c === 'timing' ? [] : c.attributeKeys;

/** `attrI` names for the asked attribute keys, with a prefix. */
const attrNames = (c: CallColumns, prefix: string): string[] =>
  attributeKeysOf(c).map((_, i) => `${prefix}${i}`);

const attributeValue = (key: string): Sql =>
  sql`if(SpanAttributes[${key}] != '', SpanAttributes[${key}], ResourceAttributes[${key}])`;

/** CLIENT spans of the window: the call as its caller saw it. */
function clientSpans(s: FanoutScope, c: CallColumns): Sql {
  const attrs = attributeKeysOf(c).map(
    (k, i) => sql`,\n    ${attributeValue(k)} AS clientAttr${raw(String(i))}`,
  );
  return sql`
  SELECT
    cityHash64(TraceId, SpanId) AS clientKey,
    toUInt8(1) AS hasClient,
    cityHash64(TraceId, ParentSpanId) AS clientFanoutKey,
    TraceId AS clientTraceId,
    ParentSpanId AS clientParentSpanId,
    SpanName AS clientOperation,
    toUnixTimestamp64Nano(Timestamp) AS clientStartNs,
    toInt64(Duration) AS clientDurationNs,
    SpanAttributes[${PEER_SERVICE_KEY}] AS peerService,
    SpanAttributes[${SERVER_ADDRESS_KEY}] AS serverAddress${join(attrs, '')}
  FROM ${TRACES}
  WHERE ${scopeWindow(s)} AND ${kindIn(CLIENT_KINDS)}`;
}

/** SERVER spans of the window (of the leaf service, when the scope names one). */
function serverSpans(s: FanoutScope, c: CallColumns): Sql {
  const placement =
    c === 'timing'
      ? raw('')
      : sql`,
    ${hostOf('ResourceAttributes')} AS serverHost,
    ResourceAttributes[${SHARING_MODE_KEY}] AS serverMode${join(
      attributeKeysOf(c).map(
        (k, i) => sql`,\n    ${attributeValue(k)} AS serverAttr${raw(String(i))}`,
      ),
      '',
    )}`;
  const leafService =
    s.leafService !== undefined ? sql` AND ServiceName = ${s.leafService}` : raw('');
  return sql`
  SELECT
    cityHash64(TraceId, ParentSpanId) AS serverParentKey,
    toUInt8(1) AS hasServer,
    TraceId AS serverTraceId,
    ParentSpanId AS serverParentSpanId,
    ServiceName AS serverService,
    SpanName AS serverOperation,
    toUnixTimestamp64Nano(Timestamp) AS serverStartNs,
    toInt64(Duration) AS serverDurationNs${placement}
  FROM ${TRACES}
  WHERE ${scopeWindow(s)} AND ${kindIn(SERVER_KINDS)}${leafService}`;
}

/**
 * One row per leaf call: a FULL JOIN of CLIENT spans with SERVER spans on (trace, client span
 * id) = (trace, server parent id). Matched rows are CLIENT->SERVER calls (timing from the
 * client, names and placement from the server), left-only rows CLIENT calls without SERVER
 * span (leaf named by peer.service, else server.address), right-only rows SERVER spans whose
 * parent is not a CLIENT span (direct children).
 */
function leafCalls(s: FanoutScope, c: CallColumns): Sql {
  const placement =
    c === 'timing'
      ? raw('')
      : sql`,
    if(hasServer = 1, if(serverHost != '', serverHost, ${UNKNOWN_HOST}), if(serverAddress != '', serverAddress, ${UNKNOWN_HOST})) AS host,
    if(hasServer = 1 AND serverMode != '', serverMode, ${UNKNOWN_MODE}) AS mode${join(
      attributeKeysOf(c).map((_, i) => {
        const [sa, ca] = [raw(`serverAttr${i}`), raw(`clientAttr${i}`)];
        return sql`,\n    multiIf(hasServer = 1 AND ${sa} != '', ${sa}, hasClient = 1 AND ${ca} != '', ${ca}, ${ABSENT_ATTRIBUTE}) AS attr${raw(String(i))}`;
      }),
      '',
    )}`;
  const leafFilter = join(
    [
      ...(s.leafService !== undefined ? [sql`\n    AND leafService = ${s.leafService}`] : []),
      ...(s.leafOperation !== undefined ? [sql`\n    AND leafOperation = ${s.leafOperation}`] : []),
    ],
    '',
  );
  return sql`
  SELECT
    if(hasClient = 1, clientFanoutKey, serverParentKey) AS fanoutKey,
    if(hasClient = 1, clientTraceId, serverTraceId) AS traceId,
    if(hasClient = 1, clientParentSpanId, serverParentSpanId) AS parentSpanId,
    if(hasServer = 1, serverService, if(peerService != '', peerService, serverAddress)) AS leafService,
    if(hasServer = 1, serverOperation, clientOperation) AS leafOperation,
    if(hasClient = 1, clientStartNs, serverStartNs) AS startNs,
    if(hasClient = 1, clientDurationNs, serverDurationNs) AS durationNs${placement}
  FROM client_spans AS c
  FULL OUTER JOIN server_spans AS s ON c.clientKey = s.serverParentKey
  WHERE parentSpanId != ''${leafFilter}`;
}

/**
 * Groups calls into fan-outs: per (fanoutKey, leafService, leafOperation), the call tuples
 * sorted by (start, duration, ...), keeping those whose closed interval [start, end] meets
 * another's. With calls sorted by start, call i meets an earlier one iff fewer than i - 1 calls
 * ended strictly before it started (counted on one merged, sorted list of starts and ends), and
 * a later one iff the next call starts no later than it ends. A group is a fan-out with >= 2
 * kept calls and its first start in [from, to).
 */
function fanoutGroups(s: FanoutScope, c: CallColumns): Sql {
  const fields = raw(
    [
      'startNs',
      'durationNs',
      ...(c === 'timing' ? [] : ['host', 'mode']),
      ...attrNames(c, 'attr'),
    ].join(', '),
  );
  // With the leaf operation fixed, every call already has it: the fan-out key alone groups.
  const oneLeaf = s.leafService !== undefined && s.leafOperation !== undefined;
  const names = oneLeaf
    ? raw('any(leafService) AS leafService,\n    any(leafOperation) AS leafOperation')
    : raw('leafService,\n    leafOperation');
  return sql`
  SELECT
    fanoutKey,
    ${names},
    any(traceId) AS traceId,
    any(parentSpanId) AS parentSpanId,
    arraySort(groupArray((${fields}))) AS sortedCalls,
    arrayMap(call -> call.1, sortedCalls) AS starts,
    arrayMap(call -> call.1 + call.2, sortedCalls) AS ends,
    if(length(sortedCalls) < 2 OR arrayMax(starts) <= arrayMin(ends), sortedCalls,
      arrayFilter((call, keep) -> keep, sortedCalls,
        arrayMap((i, endedBefore, callEnd, nextStart) -> endedBefore < i - 1 OR nextStart <= callEnd,
          arrayEnumerate(starts),
          arrayFilter((ended, boundary) -> boundary.2 = 0, arrayCumSum(arrayMap(boundary -> boundary.2, boundaries)),
            arraySort(arrayConcat(arrayMap(t -> (t, 0), starts), arrayMap(t -> (t, 1), ends))) AS boundaries),
          ends,
          arrayPushBack(arrayPopFront(starts), toInt64(9223372036854775807))))) AS keptCalls,
    length(keptCalls) AS width,
    keptCalls[1].1 AS fanoutStartNs
  FROM leaf_calls
  GROUP BY fanoutKey${oneLeaf ? raw('') : raw(', leafService, leafOperation')}
  HAVING width >= 2 AND fanoutStartNs >= ${ns(s.fromNs)} AND fanoutStartNs < ${ns(s.toNs)}`;
}

/**
 * The CTEs that detect fan-outs live, the last one `live_fanouts`: fanoutKey, leafService,
 * leafOperation, traceId, parentSpanId, keptCalls (tuples as `columns` says), width (kept
 * calls), fanoutStartNs (first kept call's start).
 */
export function liveFanoutCtes(s: FanoutScope, columns: CallColumns): Cte[] {
  return [
    { name: 'client_spans', body: clientSpans(s, columns) },
    { name: 'server_spans', body: serverSpans(s, columns) },
    { name: 'leaf_calls', body: leafCalls(s, columns) },
    { name: 'live_fanouts', body: fanoutGroups(s, columns) },
  ];
}

/**
 * `live_fanouts` plus the parent's names, as `live_named_fanouts`: the parent is looked up by
 * (trace, span id) among the spans of the window; a missing parent leaves the names empty.
 */
export function liveNamedFanoutCtes(s: FanoutScope, columns: CallColumns): Cte[] {
  return [
    ...liveFanoutCtes(s, columns),
    {
      name: 'parent_spans',
      body: sql`
  SELECT cityHash64(TraceId, SpanId) AS parentKey, ServiceName AS parentService, SpanName AS parentOperation
  FROM ${TRACES}
  WHERE ${scopeWindow(s)}`,
    },
    {
      name: 'live_named_fanouts',
      body: sql`
  SELECT f.fanoutKey AS fanoutKey, f.leafService AS leafService, f.leafOperation AS leafOperation,
    p.parentService AS parentService, p.parentOperation AS parentOperation,
    f.traceId AS traceId, f.parentSpanId AS parentSpanId, f.width AS width,
    f.fanoutStartNs AS fanoutStartNs, f.keptCalls AS keptCalls
  FROM parent_spans AS p
  RIGHT JOIN live_fanouts AS f ON p.parentKey = f.fanoutKey`,
    },
  ];
}
