import { HOST_KEYS } from './conventions';

/** One stored span as the TypeScript references read it (a row of otel_traces). */
export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  /** 'Server' / 'SPAN_KIND_SERVER' etc., as stored. */
  kind: string;
  service: string;
  name: string;
  startNs: bigint;
  durationNs: bigint;
  resource: Readonly<Record<string, string>>;
  attributes: Readonly<Record<string, string>>;
}

/** The host of a resource by the HOST_KEYS chain, '' when none is set. */
export function resourceHost(resource: Readonly<Record<string, string>>): string {
  for (const k of HOST_KEYS) {
    const v = resource[k];
    if (v) return v;
  }
  return '';
}
