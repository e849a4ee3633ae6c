// One function per /api/v1 route the dashboard reads; each returns decoded, checked data.
import { AskedEarly } from './asked-early';
import { ApiError, getJson } from './client';
import {
  decodeEdges,
  decodeFanouts,
  decodeStats,
  decodeStragglers,
  decodeTrace,
  decodeTraceSpan,
  type Edges,
  type Fanouts,
  type Stats,
  type Stragglers,
  type Trace,
  type TraceSpan,
} from './contracts';
import { decodeHosts, type HostWindows } from './hosts';
import type { TimeRange } from '../state/filters';

export interface OperationKey {
  leafService: string;
  leafOperation: string;
}

/**
 * The operation's query parameters, and only those: callers pass a whole fan-out operation
 * (it is an OperationKey by shape), whose nested objects became `[object Object]` parameters.
 */
export function operationParams(op: OperationKey): OperationKey {
  return { leafService: op.leafService, leafOperation: op.leafOperation };
}

const range = (r: TimeRange) => ({ from: Math.floor(r.fromMs), to: Math.ceil(r.toMs) });

export function fetchStats(signal: AbortSignal): Promise<Stats> {
  return getJson('stats', {}, decodeStats, signal);
}

/** The whole answer: fan-outs, and when there are none, why (hint) and the edges found. */
export function fetchFanouts(
  r: TimeRange,
  opts: { parentService?: string; thresholdMs?: number },
  signal: AbortSignal,
): Promise<Fanouts> {
  return getJson('fanouts', { query: { ...range(r), ...opts } }, decodeFanouts, signal);
}

/** Every caller -> callee edge; null from a server without the endpoint (404). */
export async function fetchEdges(r: TimeRange, signal: AbortSignal): Promise<Edges | null> {
  try {
    return await getJson('edges', { query: range(r) }, decodeEdges, signal);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

export function fetchStragglers(
  r: TimeRange,
  op: OperationKey,
  by: string,
  signal: AbortSignal,
): Promise<Stragglers> {
  return getJson(
    'stragglers',
    { query: { ...range(r), ...operationParams(op), by } },
    decodeStragglers,
    signal,
  );
}

export function fetchHosts(
  r: TimeRange,
  op: OperationKey,
  windowSeconds: number | undefined,
  signal: AbortSignal,
): Promise<HostWindows> {
  return getJson(
    'hosts',
    { query: { ...range(r), ...operationParams(op), windowSeconds } },
    decodeHosts,
    signal,
  );
}

/**
 * The trace's summary (each span without its attributes, events and links: a 10,000-span
 * trace is ~4x smaller); public/preload.js asks for the same URL on a trace page.
 */
export function fetchTrace(traceId: string, signal: AbortSignal): Promise<Trace> {
  return getJson(
    'trace',
    { params: { traceId }, query: { fields: 'summary' } },
    decodeTrace,
    signal,
  );
}

/** One span in full: what a summary leaves out, asked for when the span is selected. */
export function fetchSpan(
  traceId: string,
  spanId: string,
  signal: AbortSignal,
): Promise<TraceSpan> {
  return (
    askedEarly.take(`${traceId}:${spanId}`) ??
    getJson('span', { params: { traceId, spanId } }, decodeTraceSpan, signal)
  );
}

/** Spans asked for before the page selected them (prefetchSpan), until fetchSpan takes them. */
const askedEarly = new AskedEarly<TraceSpan>();

/**
 * Asks for a span the page is about to select (the trace page's root, selected by default) as
 * soon as the trace's summary is in, instead of after the waterfall of a 10,000-span trace has
 * rendered; the page's own fetchSpan takes the answer. A failure is the page's to show then.
 */
export function prefetchSpan(traceId: string, spanId: string): void {
  askedEarly.ask(`${traceId}:${spanId}`, () =>
    getJson('span', { params: { traceId, spanId } }, decodeTraceSpan),
  );
}

/**
 * A span the page already has in full (a summary's root span): its fetchSpan takes it instead
 * of asking the server.
 */
export function keepSpan(traceId: string, span: TraceSpan): void {
  askedEarly.ask(`${traceId}:${span.spanId}`, () => Promise.resolve(span));
}

/** A stable key for caches: the same request gets the same key. */
export function requestKey(name: string, parts: Record<string, unknown>): string {
  return `${name}:${JSON.stringify(parts, Object.keys(parts).sort())}`;
}
