/**
 * Timestamps: a run's start as whole epoch milliseconds plus a sub-millisecond nanosecond part;
 * every event as integer nanoseconds after it (exact in a float64 up to 104 days). Absolute
 * unix-nano values are assembled without BigInt, which would cost more than the encoding.
 */
import { TracegenError } from './spec';

export interface StartTime {
  /** Whole epoch milliseconds. */
  ms: number;
  /** Nanoseconds past `ms`, in [0, 1e6). */
  subNs: number;
}

/** 2025-01-01T00:00:00Z: the default, so runs are reproducible without naming a time. */
export const defaultStart = '2025-01-01T00:00:00Z';

export type StartInput = string | number | Date | bigint;

export function parseStart(v: StartInput, now?: () => number): StartTime {
  if (typeof v === 'bigint') {
    if (v < 0n) throw new TracegenError(`start must not be negative, got ${v}`);
    return { ms: Number(v / 1_000_000n), subNs: Number(v % 1_000_000n) };
  }
  let ms: number;
  if (v instanceof Date) ms = v.getTime();
  else if (typeof v === 'number') ms = v;
  else if (v === 'now') {
    if (!now) throw new TracegenError("start 'now' needs a clock passed in");
    ms = now();
  } else if (/^\d+(\.\d+)?$/.test(v)) ms = Number(v);
  else ms = Date.parse(v);
  if (!Number.isFinite(ms) || ms < 0)
    throw new TracegenError(
      `start must be ISO 8601 text, epoch milliseconds or 'now', got '${String(v)}'`,
    );
  const whole = Math.floor(ms);
  return { ms: whole, subNs: Math.round((ms - whole) * 1e6) };
}

const TWO32 = 4294967296;

/**
 * Writes start + offsetNs as a little-endian fixed64 at out[pos]. Exact: the millisecond part
 * is split at 2^32 so every product stays below 2^53.
 */
export function writeUnixNano(out: Uint8Array, pos: number, start: StartTime, offsetNs: number) {
  const o = start.subNs + offsetNs;
  const extraMs = Math.floor(o / 1e6);
  const rem = o - extraMs * 1e6;
  const ms = start.ms + extraMs;
  const msHi = Math.floor(ms / TWO32);
  const x = (ms - msHi * TWO32) * 1e6 + rem;
  const xHi = Math.floor(x / TWO32);
  const lo = x - xHi * TWO32;
  const hi = msHi * 1e6 + xHi;
  out[pos] = lo & 0xff;
  out[pos + 1] = (lo >>> 8) & 0xff;
  out[pos + 2] = (lo >>> 16) & 0xff;
  out[pos + 3] = lo >>> 24;
  out[pos + 4] = hi & 0xff;
  out[pos + 5] = (hi >>> 8) & 0xff;
  out[pos + 6] = (hi >>> 16) & 0xff;
  out[pos + 7] = hi >>> 24;
}

/** start + offsetNs as decimal text (OTLP/JSON's int64 form). */
export function unixNanoText(start: StartTime, offsetNs: number): string {
  const o = start.subNs + offsetNs;
  const extraMs = Math.floor(o / 1e6);
  const rem = o - extraMs * 1e6;
  const ms = start.ms + extraMs;
  if (ms === 0) return String(rem);
  return String(ms) + String(rem).padStart(6, '0');
}

/** start + offsetNs in epoch ms (float; ~0.25 us resolution today). */
export function epochMs(start: StartTime, offsetNs: number): number {
  return start.ms + (start.subNs + offsetNs) / 1e6;
}
