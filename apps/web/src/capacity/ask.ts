// The capacity page's controls in the URL: `load` (traffic factor) and `machines`
// (service:count,...), so a prediction can be linked. Pure.
import type { CapacityAsk } from '../api/capacity';

export const MIN_FACTOR = 0.25;
export const MAX_FACTOR = 4;
export const FACTOR_STEP = 0.05;
/** The factor shown first: next quarter's traffic, in the words. */
export const DEFAULT_FACTOR = 1.5;
/** At most this many machines per service from the page's controls. */
export const MAX_PAGE_MACHINES = 1000;

const snap = (x: number): number =>
  Math.min(MAX_FACTOR, Math.max(MIN_FACTOR, Math.round(x / FACTOR_STEP) * FACTOR_STEP));

export function readAsk(p: URLSearchParams): CapacityAsk {
  const f = Number(p.get('load') ?? DEFAULT_FACTOR);
  const machines: Record<string, number> = {};
  for (const part of (p.get('machines') ?? '').split(',')) {
    const at = part.lastIndexOf(':');
    if (at <= 0) continue;
    const n = Number(part.slice(at + 1));
    if (Number.isInteger(n) && n >= 1 && n <= MAX_PAGE_MACHINES)
      machines[decodeURIComponent(part.slice(0, at))] = n;
  }
  return { factor: Number.isFinite(f) ? Number(snap(f).toFixed(2)) : DEFAULT_FACTOR, machines };
}

export function writeAsk(p: URLSearchParams, a: CapacityAsk): URLSearchParams {
  const out = new URLSearchParams(p);
  out.set('load', String(a.factor));
  const m = Object.entries(a.machines)
    .map(([s, n]) => `${encodeURIComponent(s)}:${n}`)
    .join(',');
  if (m === '') out.delete('machines');
  else out.set('machines', m);
  return out;
}

/** The factor of a slider position (steps of FACTOR_STEP), two decimals. */
export function factorOf(position: number): number {
  return Number(snap(position).toFixed(2));
}
