import {
  ABSENT_ATTRIBUTE,
  BACKGROUND_KEY,
  CALL_SYSTEM_KEYS,
  CLIENT_KINDS,
  CONSUMER_KINDS,
  EDGE_SLACK_NS,
  HTTP_METHOD_KEYS,
  HTTP_TARGET_KEYS,
  INTERNAL_KINDS,
  MAX_WRAPPER_HOPS,
  PEER_SERVICE_KEY,
  PRODUCER_KINDS,
  SERVER_ADDRESS_KEY,
  SERVER_KINDS,
  SHARING_MODE_KEY,
  UNKNOWN_HOST,
  UNKNOWN_MODE,
} from '@tailscope/analysis';
import { hostOf, inWindow, type Cte } from './ctes';
import { adjustedCountSql } from '../traces/sampling';
import { join, raw, sql, type Sql } from './template';
import { TRACES } from '../traces/tables';

/**
 * Calls as pure SQL builders over `otel_traces` (DESIGN.md "Definitions": Call; issue #12): the
 * same definition as `@tailscope/analysis` `extractCalls` (calls.ts), which these CTEs are
 * tested against (apps/api/test/calls-sql.int.test.ts). Steps, each a CTE:
 *
 * 1. `ts_spans`: the window's spans, deduplicated (`LIMIT 1 BY` the 64-bit key of
 *    (TraceId, SpanId)), with a kind code and the client-attribute flag.
 * 2. `ts_wrappers`: INTERNAL spans without client attributes that have exactly one child.
 * 3. `ts_answers`: per call span, its SERVER / CONSUMER children (several are one answer; the
 *    earliest names the callee) and how far SERVER children reach before/after.
 * 4. `ts_hops`: call candidates (call spans; SERVER spans whose parent is no call span;
 *    INTERNAL spans that are neither calls nor wrappers) with their caller key after skipping
 *    at most MAX_WRAPPER_HOPS wrappers: one LEFT JOIN on `ts_wrappers` per hop.
 * 5. `calls`: one row per call with caller names (a LEFT JOIN on the caller span), callee names,
 *    host, timing on the caller's clock and skew; cross-service INTERNAL spans kept only when
 *    their caller is known and of another service.
 *
 * The scope's window is read with the edge margin (EDGE_SLACK_NS) on both sides; which requests
 * belong to the range is decided by whoever groups the calls (by their first call's start).
 * Only the traces with a span starting in the range itself are read from the margins: a call is
 * a span, so every call, fan-out or edge starting in the range is of such a trace, and calls
 * only ever relate spans of one trace. The rest of the margins' spans would change nothing that
 * starts in the range, and they were most of the work where the range is short beside them (the
 * open chunk's last minutes, a 10 s bucket: 2 minutes of margin).
 */

/** Kind codes of `ts_spans.kind`. */
export const KIND = { server: 1, consumer: 2, client: 3, producer: 4, internal: 5 } as const;

/** What calls read: [fromNs, toNs) plus the edge margin, and attribute columns to carry. */
export interface CallScope {
  fromNs: bigint;
  toNs: bigint;
}

const list = (values: readonly string[]): Sql =>
  join(
    values.map((v) => sql`${v}`),
    ', ',
  );

const anySet = (keys: readonly string[]): Sql =>
  join(
    keys.map((k) => sql`SpanAttributes[${k}] != ''`),
    ' OR ',
  );

/**
 * The client-attribute test of conventions.ts as one boolean expression (evaluated for INTERNAL
 * spans only: `AND` short-circuits, and map lookups are most of the scan's cost).
 */
/** The span's kind as a KIND code (0 for an unknown kind), as the analysis package reads it. */
export function spanKindSql(): Sql {
  return sql`toUInt8(multiIf(SpanKind IN (${list(SERVER_KINDS)}), ${KIND.server}, SpanKind IN (${list(CONSUMER_KINDS)}), ${KIND.consumer},
      SpanKind IN (${list(CLIENT_KINDS)}), ${KIND.client}, SpanKind IN (${list(PRODUCER_KINDS)}), ${KIND.producer},
      SpanKind IN (${list(INTERNAL_KINDS)}), ${KIND.internal}, 0))`;
}

/** An INTERNAL span with these attributes is a call (DESIGN.md "Call"), as calls.ts decides. */
export function clientAttributes(): Sql {
  return sql`((${anySet(HTTP_METHOD_KEYS)}) AND (${anySet(HTTP_TARGET_KEYS)})) OR ${anySet(CALL_SYSTEM_KEYS)} OR SpanAttributes[${PEER_SERVICE_KEY}] != ''`;
}

const attributeValue = (key: string): Sql =>
  sql`if(SpanAttributes[${key}] != '', SpanAttributes[${key}], ResourceAttributes[${key}])`;

function spans(s: CallScope, attributeKeys: readonly string[], weighted: boolean): Sql {
  const attrs = attributeKeys.map(
    (k, i) => sql`,\n    ${attributeValue(k)} AS attr${raw(String(i))}`,
  );
  // Unsampled spans (empty TraceState) skip the threshold's regular expressions.
  if (weighted) attrs.push(sql`,\n    if(TraceState = '', 1.0, ${adjustedCountSql()}) AS weight`);
  return sql`
  SELECT
    cityHash64(TraceId, SpanId) AS key,
    cityHash64(TraceId, ParentSpanId) AS parentKey,
    TraceId AS traceId, SpanId AS spanId, ParentSpanId AS parentSpanId,
    ${spanKindSql()} AS kind,
    kind = ${KIND.internal} AND (${clientAttributes()}) AS clientAttrs,
    kind IN (${KIND.client}, ${KIND.producer}) OR clientAttrs AS isCallSpan,
    ServiceName AS service, SpanName AS name,
    toUnixTimestamp64Nano(Timestamp) AS startNs, toInt64(Duration) AS durationNs,
    ${hostOf('ResourceAttributes')} AS host,
    ResourceAttributes[${SHARING_MODE_KEY}] AS mode,
    if(isCallSpan, SpanAttributes[${PEER_SERVICE_KEY}], '') AS peerService,
    if(isCallSpan, SpanAttributes[${SERVER_ADDRESS_KEY}], '') AS serverAddress,
    mapContains(SpanAttributes, ${BACKGROUND_KEY}) AS background${join(attrs, '')}
  FROM ${TRACES}
  WHERE ${inWindow(s.fromNs - EDGE_SLACK_NS, s.toNs + EDGE_SLACK_NS)}
    AND cityHash64(TraceId) IN (SELECT cityHash64(TraceId) FROM ${TRACES} WHERE ${inWindow(s.fromNs, s.toNs)})
  LIMIT 1 BY key`;
}

const WRAPPERS = sql`
  SELECT key, parentKey AS upKey, parentSpanId AS upSpanId, toUInt8(1) AS isWrapper
  FROM ts_spans
  WHERE kind = ${KIND.internal} AND NOT clientAttrs
    AND key IN (SELECT parentKey FROM ts_spans WHERE parentSpanId != '' GROUP BY parentKey HAVING count() = 1)`;

function answers(attributeKeys: readonly string[]): Sql {
  const order = raw('(startNs, spanId)');
  const attrs = attributeKeys.map(
    (_, i) => sql`,\n    argMin(attr${raw(String(i))}, ${order}) AS answerAttr${raw(String(i))}`,
  );
  return sql`
  SELECT parentKey AS key, toUInt32(count()) AS answers,
    argMin(service, ${order}) AS answerService, argMin(name, ${order}) AS answerName,
    argMin(host, ${order}) AS answerHost, argMin(mode, ${order}) AS answerMode,
    toUInt32(countIf(kind = ${KIND.server})) AS servers,
    minIf(startNs, kind = ${KIND.server}) AS serverStartNs,
    maxIf(startNs + durationNs, kind = ${KIND.server}) AS serverEndNs${join(attrs, '')}
  FROM ts_spans
  WHERE kind IN (${KIND.server}, ${KIND.consumer}) AND parentSpanId != ''
  GROUP BY parentKey`;
}

/** The caller after skipping wrappers: hop i reads `w{i}` when every earlier hop was a wrapper. */
function hops(attributeKeys: readonly string[], weighted: boolean): Sql {
  const n = MAX_WRAPPER_HOPS;
  const alias = (i: number): string => `w${i}`;
  const joins = Array.from({ length: n }, (_, i) => {
    const on = i === 0 ? 'c.parentKey' : `${alias(i - 1)}.upKey`;
    return `\n  ANY LEFT JOIN ts_wrappers AS ${alias(i)} ON ${on} = ${alias(i)}.key`;
  }).join('');
  // From the deepest hop back: the first wrapper chain that stops gives the caller.
  let callerKey = 'c.parentKey';
  let callerSpanId = 'c.parentSpanId';
  let wrappers = '0';
  for (let i = 0; i < n; i++) {
    const conds = Array.from({ length: i + 1 }, (_, j) => `${alias(j)}.isWrapper = 1`).join(
      ' AND ',
    );
    callerKey = `if(${conds}, ${alias(i)}.upKey, ${callerKey})`;
    callerSpanId = `if(${conds}, ${alias(i)}.upSpanId, ${callerSpanId})`;
    wrappers = `if(${conds}, ${i + 1}, ${wrappers})`;
  }
  const attrs =
    attributeKeys.map((_, i) => `, c.attr${i} AS attr${i}`).join('') +
    (weighted ? ', c.weight AS weight' : '');
  return sql`
  SELECT c.key AS key, c.traceId AS traceId, c.spanId AS spanId, c.kind AS kind, c.isCallSpan AS isCallSpan,
    c.service AS service, c.name AS name, c.startNs AS startNs, c.durationNs AS durationNs,
    c.host AS host, c.mode AS mode, c.peerService AS peerService, c.serverAddress AS serverAddress${raw(attrs)},
    ${raw(callerKey)} AS callerKey,
    ${raw(callerSpanId)} AS callerSpanId,
    toUInt8(${raw(wrappers)}) AS wrappers
  FROM ts_spans AS c${raw(joins)}
  WHERE c.parentSpanId != '' AND NOT c.background
    AND (c.isCallSpan
      OR (c.kind = ${KIND.server} AND c.parentKey NOT IN (SELECT key FROM ts_spans WHERE isCallSpan))
      OR (c.kind = ${KIND.internal} AND c.key NOT IN (SELECT key FROM ts_wrappers)))`;
}

function calls(attributeKeys: readonly string[], weighted: boolean): Sql {
  // A PRODUCER to a named broker is named by it, never by whichever consumer started first.
  const answered = raw(
    `h.isCallSpan AND a.answers > 0 AND NOT (h.kind = ${KIND.producer} AND (h.peerService != '' OR h.serverAddress != ''))`,
  );
  const attrs = attributeKeys.map((_, i) => {
    const [aa, ca] = [raw(`a.answerAttr${i}`), raw(`h.attr${i}`)];
    return sql`,\n    multiIf(${answered} AND ${aa} != '', ${aa}, ${ca} != '', ${ca}, ${ABSENT_ATTRIBUTE}) AS attr${raw(String(i))}`;
  });
  return sql`
  SELECT h.traceId AS traceId, h.callerKey AS callerKey, h.callerSpanId AS callerSpanId,
    p.service AS callerService, p.name AS callerOperation,
    p.startNs AS callerStartNs, p.durationNs AS callerDurationNs,
    h.spanId AS spanId, h.kind AS kind, h.isCallSpan AS isCallSpan,
    if(${answered}, a.answerService, if(h.isCallSpan, if(h.peerService != '', h.peerService, h.serverAddress), h.service)) AS leafService,
    if(${answered}, a.answerName, h.name) AS leafOperation,
    h.startNs AS startNs, h.durationNs AS durationNs, h.startNs + h.durationNs AS endNs,
    multiIf(${answered}, if(a.answerHost != '', a.answerHost, ${UNKNOWN_HOST}),
      h.isCallSpan, if(h.serverAddress != '', h.serverAddress, ${UNKNOWN_HOST}),
      if(h.host != '', h.host, ${UNKNOWN_HOST})) AS host,
    multiIf(${answered}, if(a.answerMode != '', a.answerMode, ${UNKNOWN_MODE}),
      h.isCallSpan, ${UNKNOWN_MODE}, if(h.mode != '', h.mode, ${UNKNOWN_MODE})) AS mode,
    if(h.host != '', h.host, ${UNKNOWN_HOST}) AS clientHost,
    if(h.isCallSpan, a.answers, toUInt32(0)) AS answers,
    if(h.isCallSpan AND a.servers > 0, greatest(h.startNs - a.serverStartNs, a.serverEndNs - endNs, toInt64(0)), toInt64(0)) AS skewNs,
    h.wrappers AS wrappers${join(attrs, '')}${weighted ? raw(',\n    if(p.key != 0, p.weight, h.weight) AS callerWeight') : raw('')}
  FROM ts_hops AS h
  ANY LEFT JOIN ts_answers AS a ON h.key = a.key
  ANY LEFT JOIN ts_spans AS p ON h.callerKey = p.key
  WHERE h.isCallSpan OR h.kind = ${KIND.server} OR (p.key != 0 AND p.service != h.service)`;
}

/**
 * The CTEs of calls, the last one `calls`: traceId, callerKey (cityHash64 of trace and caller
 * span id: the request), callerSpanId, callerService, callerOperation ('' when the caller span
 * is not in the window), callerStartNs, callerDurationNs (0 then), spanId, kind (KIND code),
 * isCallSpan, leafService, leafOperation, startNs, durationNs, endNs (ns, caller's clock),
 * host, mode, clientHost, answers, skewNs, wrappers, attr0..attrK (the asked attribute keys);
 * `weighted`: also callerWeight, the adjusted count of the caller span (of the call span when
 * the caller is not in the window; docs/analysis.md "Sampling"), and the SQL text is unchanged
 * otherwise.
 */
export function callCtes(
  scope: CallScope,
  attributeKeys: readonly string[] = [],
  weighted = false,
): Cte[] {
  return [
    { name: 'ts_spans', body: spans(scope, attributeKeys, weighted), materialize: true },
    { name: 'ts_wrappers', body: WRAPPERS, materialize: true },
    { name: 'ts_answers', body: answers(attributeKeys) },
    { name: 'ts_hops', body: hops(attributeKeys, weighted) },
    { name: 'calls', body: calls(attributeKeys, weighted) },
  ];
}
