/**
 * OpenTelemetry probability sampling ("TraceState: Probability Sampling"): a sampler that kept a
 * span with probability p writes the rejection threshold T = (1 - p) * 2^56 into the W3C
 * TraceState as `ot=th:<hex>`, 1 to 14 lowercase hex digits with trailing zeros removed
 * (`th:0` is 100% sampling, `th:8` is 50%). Each kept span stands for 2^56 / (2^56 - T) spans
 * of the population: its adjusted count. Weighting counts and quantiles by it keeps statistics
 * honest when traces are sampled.
 *
 * The store computes the same value in SQL (apps/api/src/store/sampling.ts), tested equal.
 */

/** 2^56: the threshold's range; thresholds are 56-bit. */
export const SAMPLING_THRESHOLD_RANGE = 1n << 56n;
/** The OTel value's key in the W3C TraceState, and the threshold's sub-key. */
export const OT_TRACESTATE_KEY = 'ot';
export const THRESHOLD_SUBKEY = 'th';

const HEX_THRESHOLD = /^[0-9a-f]{1,14}$/;

/**
 * The value of the `ot` list member of a W3C TraceState (`k1=v1,ot=th:8;rv:...,k2=v2`), or
 * null when absent. List members are separated by commas with optional blanks (OWS). O(length).
 */
export function otTraceStateValue(traceState: string): string | null {
  for (const member of traceState.split(',')) {
    const m = member.trim();
    if (m.startsWith(`${OT_TRACESTATE_KEY}=`)) return m.slice(OT_TRACESTATE_KEY.length + 1);
  }
  return null;
}

/**
 * The rejection threshold T (0 <= T < 2^56) of a TraceState's `ot=th:<hex>`, or null when the
 * TraceState carries none or an invalid one (empty, more than 14 digits, not lowercase hex):
 * such a span has no sampling information and counts as 1. The hex digits are the threshold's
 * most significant ones: `th:8` is 0x80000000000000. O(length).
 */
export function parseSamplingThreshold(traceState: string): bigint | null {
  const ot = otTraceStateValue(traceState);
  if (ot === null) return null;
  for (const part of ot.split(';')) {
    if (!part.startsWith(`${THRESHOLD_SUBKEY}:`)) continue;
    const hex = part.slice(THRESHOLD_SUBKEY.length + 1);
    if (!HEX_THRESHOLD.test(hex)) return null;
    return BigInt(`0x${hex.padEnd(14, '0')}`);
  }
  return null;
}

/**
 * Adjusted count of a span: 2^56 / (2^56 - T), or null without sampling information. 1 for
 * T = 0 (everything kept); at most 2^56 (T = 2^56 - 1). Float64, computed as the quotient of
 * the two integers each rounded once to float64, which the SQL expression does the same way.
 */
export function adjustedCount(traceState: string): number | null {
  const t = parseSamplingThreshold(traceState);
  if (t === null) return null;
  return Number(SAMPLING_THRESHOLD_RANGE) / Number(SAMPLING_THRESHOLD_RANGE - t);
}

/** Adjusted count, 1 when the span carries no sampling information (it stands for itself). */
export function spanWeight(traceState: string): number {
  return adjustedCount(traceState) ?? 1;
}
