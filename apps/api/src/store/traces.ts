import type { Store } from './client';
import { sql } from './sql';

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
}

/**
 * Every span of one trace, however old: the trace-id table narrows the time range first so
 * only the partitions that hold the trace are read.
 */
export async function selectTrace(store: Store, traceId: string): Promise<SpanRow[]> {
  const range = await store.query<{ start: string; end: string; n: string }>(sql`
    SELECT toString(min(Start)) AS start, toString(max(End)) AS end, toString(count()) AS n
    FROM otel_traces_trace_id_ts WHERE TraceId = ${traceId}`);
  const r = range[0];
  if (!r || r.n === '0') return [];
  return store.query<SpanRow>(sql`
    SELECT TraceId, SpanId, ParentSpanId, TraceState, SpanName, SpanKind, ServiceName,
      ResourceAttributes, ScopeName, ScopeVersion, SpanAttributes,
      toString(toUnixTimestamp64Nano(Timestamp)) AS StartNs, toString(Duration) AS Duration,
      StatusCode, StatusMessage,
      arrayMap(t -> toString(toUnixTimestamp64Nano(t)), Events.Timestamp) AS EventTimesNs,
      Events.Name AS EventNames, Events.Attributes AS EventAttributes,
      Links.TraceId AS LinkTraceIds, Links.SpanId AS LinkSpanIds,
      Links.TraceState AS LinkTraceStates, Links.Attributes AS LinkAttributes
    FROM otel_traces
    WHERE TraceId = ${traceId}
      AND Timestamp >= toDateTime(${r.start}) AND Timestamp <= toDateTime(${r.end}) + 1
    ORDER BY Timestamp, SpanId`);
}

export interface StoreStats {
  spans: number;
  traces: number;
  services: number;
  oldestUnixNano: string | null;
  newestUnixNano: string | null;
}

export async function selectStats(store: Store): Promise<StoreStats> {
  const rows = await store.query<{
    spans: string;
    traces: string;
    services: string;
    oldest: string;
    newest: string;
  }>(sql`
    SELECT toString(count()) AS spans, toString(uniqExact(TraceId)) AS traces,
      toString(uniqExact(ServiceName)) AS services,
      toString(toUnixTimestamp64Nano(min(Timestamp))) AS oldest,
      toString(toUnixTimestamp64Nano(max(Timestamp))) AS newest
    FROM otel_traces`);
  const r = rows[0];
  const spans = Number(r?.spans ?? 0);
  return {
    spans,
    traces: Number(r?.traces ?? 0),
    services: Number(r?.services ?? 0),
    oldestUnixNano: spans > 0 && r ? r.oldest : null,
    newestUnixNano: spans > 0 && r ? r.newest : null,
  };
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
    FROM otel_traces`);
  const r = rows[0];
  if (!r || r.n === '0') return null;
  return { minNs: BigInt(r.lo), maxNs: BigInt(r.hi) };
}
