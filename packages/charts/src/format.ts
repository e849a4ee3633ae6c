import { format } from 'd3-format';

/**
 * Formats with their units, so every number on screen says what it is. Latencies arrive in
 * milliseconds (float) from the API; sub-millisecond values show as µs, long ones as s.
 */
const ms3 = format('.3~r');
const count = format(',d');
const si = format('.3~s');

/**
 * Half a nanosecond, in ms. Spans are timed in whole nanoseconds, so a difference of means
 * smaller than this is floating-point noise, not time ("−0.00000000001 µs" on the critical path).
 */
export const NOISE_MS = 5e-7;

export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  const a = Math.abs(ms);
  if (a < NOISE_MS) return '0 ms';
  if (a < 1) return `${ms3(ms * 1000)} µs`;
  if (a < 1000) return `${ms3(ms)} ms`;
  if (a < 60_000) return `${ms3(ms / 1000)} s`;
  return `${ms3(ms / 60_000)} min`;
}

export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return '–';
  return Math.abs(n) >= 1e6 ? si(n).replace('G', 'B') : count(Math.round(n));
}

/** A probability as a percentage; small tail probabilities keep their significant digits. */
export function formatPct(p: number): string {
  if (!Number.isFinite(p)) return '–';
  const v = p * 100;
  if (v === 0) return '0%';
  if (Math.abs(v) >= 10) return `${format('.3~r')(v)}%`;
  if (Math.abs(v) >= 0.01) return `${format('.2~r')(v)}%`;
  return `${format('.1~e')(v)}%`;
}

export function formatRatio(r: number): string {
  if (!Number.isFinite(r)) return r > 0 ? '∞' : '–';
  return `×${format(r >= 10 ? '.3~r' : '.2~r')(r)}`;
}

/** Signed relative change, e.g. "−42%" (typographic minus). */
export function formatChange(from: number, to: number): string {
  if (!(from > 0) || !Number.isFinite(to)) return '–';
  const c = (to - from) / from;
  const s = format('+.0%')(c);
  return s.replace('-', '−');
}

/**
 * A p- or q-value. Below 1e-6 the computed value is only a bound (the tests round to 0), so it
 * reads "< 1e-6", never "0.0e+0".
 */
export function formatPValue(p: number): string {
  if (!Number.isFinite(p)) return '–';
  if (p < 1e-6) return '< 1e-6';
  if (p < 0.001) return '< 0.001';
  return format('.2~r')(p);
}

/** "q = 0.02", "q < 1e-6": a named p- or q-value. */
export function formatPValueNamed(name: string, p: number): string {
  const v = formatPValue(p);
  return v.startsWith('<') ? `${name} ${v}` : `${name} = ${v}`;
}

export function formatRate(perSecond: number): string {
  if (!Number.isFinite(perSecond)) return '–';
  return `${format(perSecond >= 100 ? ',.0f' : '.2~r')(perSecond)} spans/s`;
}
