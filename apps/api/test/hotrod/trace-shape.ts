import type { Span, TraceResponse } from '@tailscope/contracts';

/** Walking a stored HotROD trace: who calls whom, and how many route calls run at once. */

export interface Tree {
  spans: Span[];
  byId: Map<string, Span>;
  children: (span: Span) => Span[];
  /** Spans whose parent is not in the trace. */
  roots: Span[];
}

export function tree(trace: TraceResponse): Tree {
  const byId = new Map(trace.spans.map((s) => [s.spanId, s]));
  const kids = new Map<string, Span[]>();
  for (const s of trace.spans) {
    const list = kids.get(s.parentSpanId) ?? [];
    list.push(s);
    kids.set(s.parentSpanId, list);
  }
  return {
    spans: trace.spans,
    byId,
    children: (span) => kids.get(span.spanId) ?? [],
    roots: trace.spans.filter((s) => !byId.has(s.parentSpanId)),
  };
}

export const startNs = (s: Span): bigint => BigInt(s.startTimeUnixNano);
export const endNs = (s: Span): bigint => startNs(s) + BigInt(s.durationNs);

/** Most spans in flight at once; touching intervals (one ends as the next starts) do not overlap. */
export function concurrency(spans: Span[]): number {
  const edges = spans.flatMap((s) => [
    { t: startNs(s), d: 1 },
    { t: endNs(s), d: -1 },
  ]);
  // Ends before starts at the same instant.
  edges.sort((a, b) => (a.t === b.t ? a.d - b.d : a.t < b.t ? -1 : 1));
  let now = 0;
  let most = 0;
  for (const e of edges) {
    now += e.d;
    most = Math.max(most, now);
  }
  return most;
}

/** From the first span's start to the last one's end, in ms. */
export function spanMs(spans: Span[]): number {
  if (spans.length === 0) return 0;
  const from = spans.map(startNs).reduce((a, b) => (a < b ? a : b));
  const to = spans.map(endNs).reduce((a, b) => (a > b ? a : b));
  return Number(to - from) / 1e6;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)] ?? Number.NaN;
}
