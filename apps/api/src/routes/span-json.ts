import { ownEntry } from '@tailscope/analysis';
import type { SpanRow } from '../store';
import type { Span, SpanSummary, StatusCode } from '@tailscope/contracts';
import type { SpanSummaryRow } from '../store/traces/summary';

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

function statusCode(s: string): StatusCode {
  const v = s.toLowerCase();
  if (v === 'ok' || v === 'status_code_ok') return 'ok';
  if (v === 'error' || v === 'status_code_error') return 'error';
  return 'unset';
}

/**
 * Attribute values as the API returns them: the stored string, or, when our companion table
 * has the value's type (`typed`, keyed `<prefix>:<key>`, JSON text), the typed value back.
 */
function withTypes(
  attrs: Record<string, string>,
  prefix: string,
  typed: Record<string, string> | undefined,
): Record<string, unknown> {
  if (!typed) return attrs;
  // Object.fromEntries defines own properties: an attribute named `__proto__` stays an
  // attribute (an assignment would set the object's prototype and drop the key).
  return Object.fromEntries(
    Object.entries(attrs).map(([key, value]) => {
      const json = Object.hasOwn(typed, prefix + key) ? typed[prefix + key] : undefined;
      return [key, json === undefined ? value : parseTyped(json, value)];
    }),
  );
}

function parseTyped(json: string, fallback: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return fallback;
  }
}

/**
 * One stored row as the API's span JSON (the Collector's older upper-case enums are read too).
 * `typed`: the span's row of tailscope_typed_attributes, when it has one.
 */
export function toApiSpan(r: SpanRow, typed?: Record<string, string>): Span {
  return {
    traceId: r.TraceId,
    spanId: r.SpanId,
    parentSpanId: r.ParentSpanId,
    traceState: r.TraceState,
    name: r.SpanName,
    kind: ownEntry(KINDS, r.SpanKind) ?? 'unspecified',
    service: r.ServiceName,
    startTimeUnixNano: r.StartNs,
    durationNs: Number(r.Duration),
    attributes: withTypes(r.SpanAttributes, 's:', typed),
    resource: withTypes(r.ResourceAttributes, 'r:', typed),
    scope: { name: r.ScopeName, version: r.ScopeVersion },
    events: r.EventNames.map((name, i) => ({
      name,
      timeUnixNano: r.EventTimesNs[i] ?? '0',
      attributes: withTypes(r.EventAttributes[i] ?? {}, `e${i}:`, typed),
    })),
    links: r.LinkTraceIds.map((traceId, i) => ({
      traceId,
      spanId: r.LinkSpanIds[i] ?? '',
      traceState: r.LinkTraceStates[i] ?? '',
      attributes: withTypes(r.LinkAttributes[i] ?? {}, `l${i}:`, typed),
    })),
    status: { code: statusCode(r.StatusCode), message: r.StatusMessage },
    ...omitted(r),
  };
}

/** A summary span's status, left out when unset without a message (the common case). */
function summaryStatus(code: StatusCode, message: string): Pick<SpanSummary, 'status'> {
  return code === 'unset' && message === '' ? {} : { status: { code, message } };
}

/** One stored row as a summary answer's span: the waterfall's fields only. */
export function toSpanSummary(r: SpanSummaryRow): SpanSummary {
  return {
    spanId: r.SpanId,
    parentSpanId: r.ParentSpanId,
    name: r.SpanName,
    kind: ownEntry(KINDS, r.SpanKind) ?? 'unspecified',
    service: r.ServiceName,
    startTimeUnixNano: r.StartNs,
    durationNs: Number(r.Duration),
    ...summaryStatus(statusCode(r.StatusCode), r.StatusMessage),
    ...(Object.keys(r.SpanAttributes).length > 0 ? { attributes: r.SpanAttributes } : {}),
    ...(Object.keys(r.ResourceAttributes).length > 0 ? { resource: r.ResourceAttributes } : {}),
  };
}

/** The span's `omitted` counts, only when the read limit cut something. */
function omitted(r: SpanRow): Pick<Span, 'omitted'> {
  const o = {
    attributes: r.OmittedAttributes,
    events: r.OmittedEvents,
    links: r.OmittedLinks,
  };
  return o.attributes > 0 || o.events > 0 || o.links > 0 ? { omitted: o } : {};
}
