import type { SpanRecord } from '@tailscope/analysis';
import type { Store } from '../src/store';
import { spanRow } from './analysis-support';

/**
 * OTLP/JSON bodies from span records with a W3C TraceState per span, for the sampling-* tests:
 * spans enter through the real receiver (decode, queue, insert), as a sampler's would.
 */

const KIND: Readonly<Record<string, number>> = { Internal: 1, Server: 2, Client: 3 };

/** One ExportTraceServiceRequest (OTLP/JSON) holding `spans`, one resource per (service, host). */
export function otlpJson(
  spans: readonly SpanRecord[],
  traceStateOf: (s: SpanRecord) => string,
  /** OTLP attributes added to every span (typed values, keys of any name). */
  extraAttributes: readonly { key: string; value: Record<string, unknown> }[] = [],
) {
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
            attributes: [
              ...Object.entries(s.attributes).map(([key, value]) => ({
                key,
                value: { stringValue: value },
              })),
              ...extraAttributes,
            ],
          })),
        },
      ],
    })),
  });
}

/**
 * TraceStates a sampler may write, and ones it should not: thresholds 0 (keep all), 8 (half),
 * ffffff (2^24 each), ffffffff (2^32), the largest (14 digits, 2^56), and invalid ones (upper
 * case, 15 digits, not hex, empty, no `ot`), which carry no sampling information and count 1.
 */
export const TRACE_STATES = [
  '',
  'ot=th:0',
  'ot=th:8',
  'ot=th:ffffff',
  'ot=th:ffffffff',
  'ot=th:ffffffffffffff',
  'ot=th:FFFF',
  'ot=th:fffffffffffffff',
  'ot=th:xyz',
  'ot=th:',
  'ot=rv:abcdef;th:c',
  'vendor=1,ot=th:4',
  '__proto__=th:8',
  'ot=constructor:1;th:1',
];

/** Inserts span records with a TraceState each (JSONEachRow, as the receiver's columns). */
export async function insertWithTraceStates(
  store: Store,
  spans: readonly SpanRecord[],
  traceStateOf: (s: SpanRecord) => string,
): Promise<void> {
  const body = spans
    .map((s) => {
      const row = JSON.parse(spanRow(s)) as Record<string, unknown>;
      return JSON.stringify({ ...row, TraceState: traceStateOf(s) });
    })
    .join('\n');
  await store.client.command({ query: `INSERT INTO otel_traces FORMAT JSONEachRow\n${body}` });
}
