import { waitingLabel } from '@tailscope/analysis';
import type { TraceSpan } from '../api/contracts';
import type { TimedSpan } from './trace-tree';

/** One event of a span as the details panel lists it: its text and when it happened. */
export interface EventRow {
  /** The event's text: OpenTracing-bridge logs (HotROD) carry it in the `event` attribute. */
  label: string;
  /** ms after the span's start (negative: clock skew between span and event). */
  atSpanMs: number;
  /** ms after the trace's first span started. */
  atTraceMs: number;
  /** Attributes other than the one used as the label. */
  attributes: Record<string, unknown>;
}

function ns(s: string): bigint {
  return /^\d+$/.test(s) ? BigInt(s) : 0n;
}

/** Events in time order with their offsets; `t0Ns` is the trace's first span start. */
export function eventRows(span: TraceSpan, t0Ns: bigint): EventRow[] {
  const start = ns(span.startTimeUnixNano);
  return span.events
    .map((e) => {
      const t = ns(e.timeUnixNano);
      const text = e.attributes.event;
      const { event: _e, ...rest } = e.attributes;
      const useAttr = typeof text === 'string' && text !== '';
      return {
        label: useAttr ? text : e.name,
        atSpanMs: Number(t - start) / 1e6,
        atTraceMs: Number(t - t0Ns) / 1e6,
        attributes: useAttr ? rest : e.attributes,
      };
    })
    .sort((a, b) => a.atTraceMs - b.atTraceMs);
}

/** Attribute values as text: strings as they are, anything else as JSON. */
export function attributeText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** Path spans by self time (largest first) with where each starts, for the path table. */
const kindOf = (k: string): string => k.toLowerCase().replace(/^span_kind_/, '');

/**
 * How a span on the path is named: a CLIENT span answered by a SERVER span holds the path only
 * while its callee's server span is not running, so its self time is waiting (analysis
 * `waitingLabel`), not the caller's work.
 */
export function pathLabel(t: TimedSpan): string {
  const server =
    kindOf(t.span.kind) === 'client'
      ? t.children.find((c) => kindOf(c.span.kind) === 'server')
      : undefined;
  return server
    ? `${t.span.service}: ${waitingLabel(server.span.service)}`
    : `${t.span.service}: ${t.span.name}`;
}

export function pathRows(
  path: readonly { spanId: string; selfMs: number }[],
  byId: ReadonlyMap<string, TimedSpan>,
): { span: TimedSpan; selfMs: number; share: number }[] {
  const total = path.reduce((a, s) => a + s.selfMs, 0);
  const out: { span: TimedSpan; selfMs: number; share: number }[] = [];
  for (const s of path) {
    const span = byId.get(s.spanId);
    if (span && s.selfMs > 0)
      out.push({ span, selfMs: s.selfMs, share: total > 0 ? s.selfMs / total : 0 });
  }
  return out.sort((a, b) => b.selfMs - a.selfMs);
}
