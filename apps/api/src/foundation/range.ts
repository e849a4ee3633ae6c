import { TIME_MAX_MS, TIME_MIN_MS } from '@tailscope/contracts';
import { badRequest } from './errors';

// Range parsing and the request parameters every route checks the same way: a 400 names what
// is wrong. Clamping a range to what the store holds reads the store (routes/clamp-range.ts).

const HOUR_MS = 3_600_000;

/**
 * Epoch ms from `epoch ms` digits (fractions allowed) or ISO-8601 text, between 1970 and 2200
 * whichever way it is written; ranges are then clamped to the stored data (clampRange).
 */
function parseTime(name: string, raw: string): number {
  const text = raw.trim();
  let v = NaN;
  if (/^-?\d+(\.\d+)?$/.test(text)) v = Number(text);
  else if (/^\d{4}-\d{2}-\d{2}/.test(text)) v = Date.parse(text);
  else
    throw badRequest(
      `${name} must be epoch milliseconds or ISO-8601 date-time, got ${JSON.stringify(raw)}`,
    );
  // The same instants are accepted whichever way they are written (year 0000 refused both ways).
  if (!(v >= TIME_MIN_MS && v <= TIME_MAX_MS))
    throw badRequest(
      `${name} must be between 1970-01-01 and 2200-01-01 (epoch ms ${TIME_MIN_MS} to ${TIME_MAX_MS}), got ${JSON.stringify(raw)}`,
    );
  return v;
}

/** A query's [from, to): ms as asked (echoed in answers), ns as the store reads them. */
export interface TimeRange {
  fromMs: number;
  toMs: number;
  fromNs: bigint;
  toNs: bigint;
}

export function msToNs(ms: number): bigint {
  const whole = Math.floor(ms);
  return BigInt(whole) * 1_000_000n + BigInt(Math.round((ms - whole) * 1e6));
}

/** [from, to) from the query, defaulting to the last hour; 400 when reversed. */
export function parseRange(
  q: { from?: string | undefined; to?: string | undefined },
  nowMs: number,
): TimeRange {
  const toMs = q.to !== undefined ? parseTime('to', q.to) : nowMs;
  const fromMs = q.from !== undefined ? parseTime('from', q.from) : toMs - HOUR_MS;
  if (!(fromMs < toMs)) throw badRequest(`from (${fromMs}) must be before to (${toMs})`);
  return { fromMs, toMs, fromNs: msToNs(fromMs), toNs: msToNs(toMs) };
}

/** A non-empty string parameter, or 400 naming it. */
export function requireText(name: string, v: string | undefined): string {
  if (v === undefined || v === '') throw badRequest(`${name} is required`);
  return v;
}

/** An optional finite number in [min, max], or 400 naming it. */
export function optionalNumber(
  name: string,
  v: number | undefined,
  min: number,
  max: number,
): number | undefined {
  if (v === undefined) return undefined;
  if (!Number.isFinite(v) || v < min || v > max)
    throw badRequest(`${name} must be a number in [${min}, ${max}], got ${v}`);
  return v;
}
