import {
  BACKGROUND_KEY,
  CALL_SYSTEM_KEYS,
  HOST_KEYS,
  HTTP_METHOD_KEYS,
  HTTP_TARGET_KEYS,
  PEER_SERVICE_KEY,
  SERVER_ADDRESS_KEY,
  SHARING_MODE_KEY,
  type SpanRecord,
} from '@tailscope/analysis';
import type { Store } from '../engine/client';
import { inWindow } from '../fanouts/sql';
import { adjustedCountSql } from '../traces/sampling';
import { param, sql } from '../sql/template';
import { TRACES } from '../traces/tables';

/** Which requests: traces with a span of the leaf operation starting in [fromNs, toNs). */
export interface RequestTreeScope {
  fromNs: bigint;
  toNs: bigint;
  leafService: string;
  leafOperation: string;
}

/**
 * Only the attributes the calls definition reads (hosts, sharing mode, client attributes): the
 * rows are parsed on the event loop, so they carry nothing else.
 */
const RESOURCE_KEYS = [...HOST_KEYS, SHARING_MODE_KEY];
const SPAN_KEYS = [
  ...new Set<string>([
    ...HTTP_METHOD_KEYS,
    ...HTTP_TARGET_KEYS,
    ...CALL_SYSTEM_KEYS,
    PEER_SERVICE_KEY,
    SERVER_ADDRESS_KEY,
    BACKGROUND_KEY,
  ]),
];

/** Spans of a trace may start this long before or after the leaf call (the whole request). */
export const TRACE_SLACK_NS = 60_000_000_000n;

interface Row {
  TraceId: string;
  SpanId: string;
  ParentSpanId: string;
  SpanKind: string;
  ServiceName: string;
  SpanName: string;
  StartNs: string;
  Duration: string;
  ResourceAttributes: Record<string, string>;
  SpanAttributes: Record<string, string>;
}

/**
 * The whole requests (root span and call tree) of up to `maxTraces` traces that hold a span of
 * the leaf operation in the range, a deterministic uniform sample (by trace id hash) when more
 * match, and at most `maxSpans` spans in all. Two bounded queries; the tree is built from them, with
 * the calls definition of issue #12, on the analysis worker (requestTreesFromSpans).
 */
export async function loadRequestSpans(
  store: Store,
  s: RequestTreeScope,
  limits: { maxTraces: number; maxSpans: number },
  opts: { weights?: boolean } = {},
): Promise<{
  spans: SpanRecord[];
  sampled: boolean;
  truncated: boolean;
  /** With `weights`: trace id -> its root span's adjusted count (absent: 1). */
  traceWeights?: Record<string, number>;
}> {
  const ids = await store.query<{ TraceId: string; n: string }>(sql`
    SELECT TraceId, toString(count() OVER ()) AS n FROM (
      SELECT DISTINCT TraceId FROM ${TRACES}
      WHERE ${inWindow(s.fromNs, s.toNs)}
        AND ServiceName = ${s.leafService} AND SpanName = ${s.leafOperation})
    ORDER BY cityHash64(TraceId), TraceId
    LIMIT ${param(limits.maxTraces, 'UInt64')}`);
  const matched = Number(ids[0]?.n ?? '0');
  if (ids.length === 0) return { spans: [], sampled: false, truncated: false };
  const rows = await store.query<Row>(sql`
    SELECT TraceId, SpanId, ParentSpanId, SpanKind, ServiceName, SpanName,
      toString(toUnixTimestamp64Nano(Timestamp)) AS StartNs, toString(Duration) AS Duration,
      mapFilter((k, v) -> has(${param(RESOURCE_KEYS, 'Array(String)')}, k), ResourceAttributes) AS ResourceAttributes,
      mapFilter((k, v) -> has(${param(SPAN_KEYS, 'Array(String)')}, k), SpanAttributes) AS SpanAttributes
    FROM ${TRACES}
    WHERE ${inWindow(s.fromNs - TRACE_SLACK_NS, s.toNs + TRACE_SLACK_NS)}
      AND TraceId IN (${param(
        ids.map((r) => r.TraceId),
        'Array(String)',
      )})
    ORDER BY TraceId, Timestamp, SpanId
    LIMIT ${param(limits.maxSpans, 'UInt64')}`);
  const spans: SpanRecord[] = rows.map((r) => ({
    traceId: r.TraceId,
    spanId: r.SpanId,
    parentSpanId: r.ParentSpanId,
    kind: r.SpanKind,
    service: r.ServiceName,
    name: r.SpanName,
    startNs: BigInt(r.StartNs),
    durationNs: BigInt(r.Duration),
    resource: r.ResourceAttributes,
    attributes: r.SpanAttributes,
  }));
  return {
    spans,
    sampled: matched > ids.length,
    truncated: rows.length >= limits.maxSpans,
    ...(opts.weights === true
      ? {
          traceWeights: await traceWeights(
            store,
            s,
            ids.map((r) => r.TraceId),
          ),
        }
      : {}),
  };
}

/**
 * Each trace's adjusted count (docs/analysis.md "Sampling"): its root span's, or, without a
 * stored root, that of any of its spans carrying a TraceState. Head sampling decides per trace.
 */
export async function traceWeights(
  store: Store,
  s: RequestTreeScope,
  traceIds: string[],
): Promise<Record<string, number>> {
  const rows = await store.query<{ TraceId: string; weight: number | string }>(sql`
    SELECT TraceId, if(countIf(ParentSpanId = '') > 0, anyIf(w, ParentSpanId = ''), any(w)) AS weight
    FROM (SELECT TraceId, ParentSpanId, ${adjustedCountSql()} AS w FROM ${TRACES}
      WHERE ${inWindow(s.fromNs - TRACE_SLACK_NS, s.toNs + TRACE_SLACK_NS)} AND TraceState != ''
        AND TraceId IN (${param(traceIds, 'Array(String)')}))
    GROUP BY TraceId`);
  return Object.fromEntries(rows.map((r) => [r.TraceId, Number(r.weight)]));
}
