import type { SpanRecord } from '@tailscope/analysis';

/**
 * OTLP/JSON bodies from span records with a W3C TraceState per span, for the sampling-* tests:
 * spans enter through the real receiver (decode, queue, insert), as a sampler's would.
 */

const KIND: Readonly<Record<string, number>> = { Internal: 1, Server: 2, Client: 3 };

/** One ExportTraceServiceRequest (OTLP/JSON) holding `spans`, one resource per (service, host). */
export function otlpJson(spans: readonly SpanRecord[], traceStateOf: (s: SpanRecord) => string) {
  const byResource = new Map<string, SpanRecord[]>();
  for (const s of spans) {
    const key = JSON.stringify(Object.entries(s.resource).sort());
    const list = byResource.get(key) ?? [];
    list.push(s);
    byResource.set(key, list);
  }
  return JSON.stringify({
    resourceSpans: [...byResource.values()].map((list) => ({
      resource: {
        attributes: Object.entries((list[0] as SpanRecord).resource).map(([key, value]) => ({
          key,
          value: { stringValue: value },
        })),
      },
      scopeSpans: [
        {
          spans: list.map((s) => ({
            traceId: s.traceId,
            spanId: s.spanId,
            ...(s.parentSpanId === '' ? {} : { parentSpanId: s.parentSpanId }),
            traceState: traceStateOf(s),
            name: s.name,
            kind: KIND[s.kind] ?? 1,
            startTimeUnixNano: String(s.startNs),
            endTimeUnixNano: String(s.startNs + s.durationNs),
            attributes: Object.entries(s.attributes).map(([key, value]) => ({
              key,
              value: { stringValue: value },
            })),
          })),
        },
      ],
    })),
  });
}
