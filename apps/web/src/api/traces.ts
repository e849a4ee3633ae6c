// GET /api/v1/traces (trace search) and GET /api/v1/criticalpath (the aggregated critical
// path): decoded at the edge like every response.
import type * as C from '@tailscope/contracts';
import { getJson } from './client';
import { arr, bool, num, obj, oneOf, optional, str, withDefault, type Decoder } from './decode';
import type { TimeRange } from '../state/filters';
import { decodeSampling } from './contracts';

export type TraceSummary = C.TraceSummary;
export type TraceSearch = Pick<C.TracesResponse, 'traces' | 'more' | 'limit'>;

const summary = obj<TraceSummary>({
  traceId: str,
  rootService: str,
  rootOperation: str,
  startTimeUnixNano: str,
  startMs: num,
  durationMs: num,
  spanCount: num,
  errorCount: num,
  matchedSpan: optional(
    obj<NonNullable<TraceSummary['matchedSpan']>>({
      spanId: str,
      service: str,
      operation: str,
      durationMs: num,
    }),
  ),
});

export const decodeTraceSearch: Decoder<TraceSearch> = obj<TraceSearch>({
  traces: arr(summary),
  more: withDefault(bool, false),
  limit: num,
});

/** The search filters a page keeps in its URL (all optional). */
export interface TraceFilters {
  service?: string | undefined;
  operation?: string | undefined;
  minDurationMs?: number | undefined;
  maxDurationMs?: number | undefined;
  error?: boolean | undefined;
  order?: 'newest' | 'slowest' | undefined;
  limit?: number | undefined;
}

export function fetchTraceSearch(
  r: TimeRange,
  f: TraceFilters,
  signal: AbortSignal,
): Promise<TraceSearch> {
  return getJson(
    'traces',
    {
      query: {
        from: Math.floor(r.fromMs),
        to: Math.ceil(r.toMs),
        service: f.service,
        operation: f.operation,
        minDurationMs: f.minDurationMs,
        maxDurationMs: f.maxDurationMs,
        error: f.error,
        order: f.order,
        limit: f.limit,
      },
    },
    decodeTraceSearch,
    signal,
  );
}

export type CriticalPathBand = C.CriticalPathBand;
export const BANDS: readonly CriticalPathBand[] = ['p90', 'p95', 'p99', 'p999'];
export type CriticalPathEntry = C.CriticalPathEntry;
export type CriticalPath = Omit<C.CriticalPathResponse, 'from' | 'to'>;

const band = oneOf(BANDS);
const ids = withDefault(arr(str), []);

export const decodeCriticalPath: Decoder<CriticalPath> = obj<CriticalPath>({
  service: str,
  operation: str,
  requests: num,
  slow: obj<CriticalPath['slow']>({ fromMs: num, requests: num, sampled: optional(num) }),
  typical: obj<CriticalPath['typical']>({
    fromMs: num,
    toMs: num,
    requests: num,
    sampled: optional(num),
  }),
  entries: arr(
    obj<CriticalPathEntry>({
      service: str,
      operation: str,
      slowMs: num,
      typicalMs: num,
      slowShare: num,
      typicalShare: num,
      deltaMs: num,
    }),
  ),
  band: optional(band),
  exemplars: optional(obj({ slow: ids, typical: ids })),
  trusted: optional(bool),
  warning: optional(str),
  sampling: optional(decodeSampling),
  // Absent from servers before the root selector (issue 24).
  roots: optional(
    arr(
      obj<NonNullable<CriticalPath['roots']>[number]>({
        service: str,
        operation: str,
        requests: num,
      }),
    ),
  ),
});

export function fetchCriticalPath(
  r: TimeRange,
  q: { service?: string | undefined; operation?: string | undefined; band: CriticalPathBand },
  signal: AbortSignal,
): Promise<CriticalPath> {
  return getJson(
    'criticalPath',
    { query: { from: Math.floor(r.fromMs), to: Math.ceil(r.toMs), ...q } },
    decodeCriticalPath,
    signal,
  );
}
