/**
 * A small, independent reading of generated spans for tests: calls (CLIENT, PRODUCER, or
 * INTERNAL with client attributes), their caller (skipping single-child INTERNAL wrappers) and
 * leaf, per request and edge: calls and concurrency (touching intervals do not overlap).
 */
import type { ReferenceSpan } from './otlp-reference';

export interface RefCall {
  trace: string;
  edge: string;
  startNs: bigint;
  endNs: bigint;
}

const isCall = (s: ReferenceSpan) =>
  s.kind === 3 ||
  s.kind === 4 ||
  (s.kind === 1 &&
    (s.attributes['http.method'] !== undefined ||
      s.attributes['http.request.method'] !== undefined ||
      s.attributes['rpc.system'] !== undefined ||
      s.attributes['db.system'] !== undefined ||
      s.attributes['messaging.system'] !== undefined));

/** Unique spans (first copy of each trace/span id). */
export function unique(spans: ReferenceSpan[]): ReferenceSpan[] {
  const seen = new Map<string, ReferenceSpan>();
  for (const s of spans)
    if (!seen.has(`${s.traceId}/${s.spanId}`)) seen.set(`${s.traceId}/${s.spanId}`, s);
  return [...seen.values()];
}

export function referenceCalls(all: ReferenceSpan[]): RefCall[] {
  const spans = unique(all);
  const byId = new Map(spans.map((s) => [`${s.traceId}/${s.spanId}`, s]));
  const children = new Map<string, ReferenceSpan[]>();
  for (const s of spans) {
    if (!s.parentSpanId) continue;
    const k = `${s.traceId}/${s.parentSpanId}`;
    children.set(k, [...(children.get(k) ?? []), s]);
  }
  const kids = (s: ReferenceSpan) => children.get(`${s.traceId}/${s.spanId}`) ?? [];
  const isWrapper = (s: ReferenceSpan) => s.kind === 1 && !isCall(s) && kids(s).length === 1;
  const calls: RefCall[] = [];
  for (const s of spans) {
    if (!isCall(s)) continue;
    let caller = byId.get(`${s.traceId}/${s.parentSpanId}`);
    while (caller && isWrapper(caller))
      caller = byId.get(`${caller.traceId}/${caller.parentSpanId}`);
    if (!caller) continue;
    const server = kids(s).find((c) => c.kind === 2);
    const leaf = server
      ? `${server.resource['service.name']}/${server.name}`
      : `${s.attributes['peer.service']}/${s.name}`;
    calls.push({
      trace: s.traceId,
      edge: `${caller.resource['service.name']}/${caller.name} -> ${leaf}`,
      startNs: BigInt(s.startTimeUnixNano),
      endNs: BigInt(s.endTimeUnixNano),
    });
  }
  return calls;
}

/**
 * Most calls in flight at once; an interval that ends where another starts does not overlap, and
 * a call of zero length (a ms clock) is still one call in flight.
 */
export function concurrency(calls: { startNs: bigint; endNs: bigint }[]): number {
  const events = calls.flatMap((c) => [
    { t: c.startNs, d: 1 },
    { t: c.endNs, d: -1 },
  ]);
  events.sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : a.d - b.d));
  let now = 0;
  let max = 0;
  for (const e of events) max = Math.max(max, (now += e.d));
  return Math.max(max, calls.length > 0 ? 1 : 0);
}

/** Per edge, per trace: the calls. */
export function byEdgeAndTrace(calls: RefCall[]): Map<string, Map<string, RefCall[]>> {
  const out = new Map<string, Map<string, RefCall[]>>();
  for (const c of calls) {
    const m = out.get(c.edge) ?? new Map<string, RefCall[]>();
    m.set(c.trace, [...(m.get(c.trace) ?? []), c]);
    out.set(c.edge, m);
  }
  return out;
}
