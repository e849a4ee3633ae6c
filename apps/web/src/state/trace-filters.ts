// The Traces page's own URL keys (beside the shared range in filters.ts), so a link reproduces
// a search: `service`, `operation`, `minMs`, `maxMs`, `error`, `order`. Pure.
import type { TraceFilters } from '../api/traces';

export const TRACE_FILTER_KEYS = ['service', 'operation', 'minMs', 'maxMs', 'error', 'order'];

function text(raw: string | null): string | undefined {
  return raw === null || raw === '' ? undefined : raw;
}

function nonNegative(raw: string | null): number | undefined {
  if (raw === null || raw.trim() === '') return undefined;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

export function parseTraceFilters(params: URLSearchParams): TraceFilters {
  const f: TraceFilters = {};
  const service = text(params.get('service'));
  const operation = text(params.get('operation'));
  const minMs = nonNegative(params.get('minMs'));
  const maxMs = nonNegative(params.get('maxMs'));
  const error = params.get('error');
  const order = params.get('order');
  if (service !== undefined) f.service = service;
  if (operation !== undefined) f.operation = operation;
  if (minMs !== undefined) f.minDurationMs = minMs;
  if (maxMs !== undefined) f.maxDurationMs = maxMs;
  if (error === 'true' || error === 'false') f.error = error === 'true';
  if (order === 'slowest' || order === 'newest') f.order = order;
  return f;
}

/** Writes `f` over `base` (other keys survive); absent filters leave no key. */
export function writeTraceFilters(base: URLSearchParams, f: TraceFilters): URLSearchParams {
  const out = new URLSearchParams(base);
  for (const k of TRACE_FILTER_KEYS) out.delete(k);
  if (f.service !== undefined) out.set('service', f.service);
  if (f.operation !== undefined) out.set('operation', f.operation);
  if (f.minDurationMs !== undefined) out.set('minMs', String(f.minDurationMs));
  if (f.maxDurationMs !== undefined) out.set('maxMs', String(f.maxDurationMs));
  if (f.error !== undefined) out.set('error', String(f.error));
  if (f.order !== undefined) out.set('order', f.order);
  out.sort();
  return out;
}

/**
 * A link to the Traces page showing requests of one operation in a duration band: what a view
 * that names requests (a Table 1 band, a tail fan-out, a critical-path band) links to when it
 * has no trace ids of its own. Keeps the shared range of `current`.
 */
export function tracesSearch(
  f: TraceFilters,
  current: string = typeof window === 'undefined' ? '' : window.location.search,
): string {
  const src = new URLSearchParams(current);
  const keep = new URLSearchParams();
  for (const k of ['range', 'from', 'to']) {
    const v = src.get(k);
    if (v !== null) keep.set(k, v);
  }
  return `?${writeTraceFilters(keep, f).toString()}`;
}
