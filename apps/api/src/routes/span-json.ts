import type { SpanRow } from '../store';
import type { ApiSpan } from './traces';

const KINDS: Record<string, string> = {
  Unspecified: 'unspecified',
  Internal: 'internal',
  Server: 'server',
  Client: 'client',
  Producer: 'producer',
  Consumer: 'consumer',
  SPAN_KIND_UNSPECIFIED: 'unspecified',
  SPAN_KIND_INTERNAL: 'internal',
  SPAN_KIND_SERVER: 'server',
  SPAN_KIND_CLIENT: 'client',
  SPAN_KIND_PRODUCER: 'producer',
  SPAN_KIND_CONSUMER: 'consumer',
};

function statusCode(s: string): 'unset' | 'ok' | 'error' {
  const v = s.toLowerCase();
  if (v === 'ok' || v === 'status_code_ok') return 'ok';
  if (v === 'error' || v === 'status_code_error') return 'error';
  return 'unset';
}

/** One stored row as the API's span JSON (the Collector's older upper-case enums are read too). */
export function toApiSpan(r: SpanRow): ApiSpan {
  return {
    traceId: r.TraceId,
    spanId: r.SpanId,
    parentSpanId: r.ParentSpanId,
    traceState: r.TraceState,
    name: r.SpanName,
    kind: KINDS[r.SpanKind] ?? 'unspecified',
    service: r.ServiceName,
    startTimeUnixNano: r.StartNs,
    durationNs: Number(r.Duration),
    attributes: r.SpanAttributes,
    resource: r.ResourceAttributes,
    scope: { name: r.ScopeName, version: r.ScopeVersion },
    events: r.EventNames.map((name, i) => ({
      name,
      timeUnixNano: r.EventTimesNs[i] ?? '0',
      attributes: r.EventAttributes[i] ?? {},
    })),
    links: r.LinkTraceIds.map((traceId, i) => ({
      traceId,
      spanId: r.LinkSpanIds[i] ?? '',
      traceState: r.LinkTraceStates[i] ?? '',
      attributes: r.LinkAttributes[i] ?? {},
    })),
    status: { code: statusCode(r.StatusCode), message: r.StatusMessage },
  };
}
