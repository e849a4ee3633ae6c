import {
  HOST_KEYS,
  PEER_SERVICE_KEY,
  SERVER_ADDRESS_KEY,
  SHARING_MODE_KEY,
} from '@tailscope/analysis';
import type { Store } from '../engine/client';
import { param, sql, type Sql } from '../sql/template';
import { TRACES } from './tables';
import { selectSpanRows, traceFilter, type SpanRow } from './spans';

/**
 * The lighter reads behind a trace's summary answer (`fields=summary`) and its per-span
 * details: the waterfall needs each span's place, name and status only, and reading the
 * attribute, event and link columns of 10,000 spans (then writing and parsing them as JSON)
 * was most of the time a large trace took to open.
 */

/** One span without its attributes, resource, scope, events and links. */
export type SpanSummaryRow = Pick<
  SpanRow,
  | 'SpanId'
  | 'ParentSpanId'
  | 'SpanName'
  | 'SpanKind'
  | 'ServiceName'
  | 'StartNs'
  | 'Duration'
  | 'StatusCode'
  | 'StatusMessage'
  | 'ResourceAttributes'
  | 'SpanAttributes'
>;

/**
 * The few attributes a summary keeps: what the trace page names a fan-out's calls by (the
 * host and its sharing mode from the resource, the peer of a client call without a server
 * span), as the fan-out model of the dashboard and request-trees.ts read them.
 */
export const SUMMARY_RESOURCE_KEYS: readonly string[] = [...HOST_KEYS, SHARING_MODE_KEY];
export const SUMMARY_SPAN_KEYS: readonly string[] = [PEER_SERVICE_KEY, SERVER_ADDRESS_KEY];

/**
 * The spans of one trace, earliest first, at most `maxSpans`, without their detail columns.
 * `where`: the trace's filter when the caller has it (traceScope), else it is looked up.
 */
export async function selectTraceSummary(
  store: Store,
  traceId: string,
  maxSpans: number,
  where: Sql | null = null,
): Promise<SpanSummaryRow[]> {
  where ??= await traceFilter(store, traceId);
  if (!where) return [];
  return store.query<SpanSummaryRow>(sql`
    SELECT SpanId, ParentSpanId, SpanName, SpanKind, ServiceName,
      toString(toUnixTimestamp64Nano(Timestamp)) AS StartNs, toString(Duration) AS Duration,
      StatusCode, StatusMessage,
      mapFilter((k, v) -> has(${param(SUMMARY_RESOURCE_KEYS, 'Array(String)')}, k), ResourceAttributes) AS ResourceAttributes,
      mapFilter((k, v) -> has(${param(SUMMARY_SPAN_KEYS, 'Array(String)')}, k), SpanAttributes) AS SpanAttributes
    FROM ${TRACES}
    WHERE ${where}
    ORDER BY Timestamp, SpanId
    LIMIT ${param(maxSpans, 'UInt64')}`);
}

/**
 * One span in full, cut to `maxAttributes` as selectTrace cuts each span. The trace's time
 * range (from the trace-id table) bounds the read to its partitions and granules, the
 * TraceId bloom filter skips the rest (`where`, as for selectTraceSummary). Null: no such span
 * in that trace. A span id stored
 * twice in one trace (a duplicate export) answers with the earliest copy.
 */
export async function selectSpan(
  store: Store,
  traceId: string,
  spanId: string,
  maxAttributes: number,
  where: Sql | null = null,
): Promise<SpanRow | null> {
  where ??= await traceFilter(store, traceId);
  if (!where) return null;
  const rows = await selectSpanRows(store, sql`${where} AND SpanId = ${spanId}`, {
    maxSpans: 1,
    maxAttributes,
  });
  return rows[0] ?? null;
}
