import { OT_TRACESTATE_KEY, THRESHOLD_SUBKEY } from '@tailscope/analysis';
import type { Store } from '../engine/client';
import { inWindow } from '../sql/ctes';
import { raw, sql, type Sql } from '../sql/template';
import { TRACES } from './tables';
import { SPAN_COUNT_BUCKET_NS, spansPerBucket } from './span-counts';

/**
 * OpenTelemetry probability sampling in SQL: the same reading of `ot=th:<hex>` as
 * `@tailscope/analysis` `parseSamplingThreshold` / `adjustedCount` (tested equal in
 * sampling.int.test.ts). A span without a valid threshold has no sampling information and
 * weighs 1.
 */

/** The `ot` member's value: first `ot=` list member, blanks around it dropped. */
const otValue = (col: string): Sql =>
  sql`extract(${raw(col)}, ${`(?:^|,)[ \\t\\n\\r]*${OT_TRACESTATE_KEY}=([^,]*?)[ \\t\\n\\r]*(?:,|$)`})`;

/** The first `th:` sub-key's value ('' when none). */
const thValue = (col: string): Sql =>
  sql`extract(${otValue(col)}, ${`(?:^|;)${THRESHOLD_SUBKEY}:([^;]*)`})`;

/** 1 when the span carries a valid threshold (1-14 lowercase hex digits), else 0. */
export function hasSamplingInfoSql(col = 'TraceState'): Sql {
  return sql`match(${thValue(col)}, '^[0-9a-f]{1,14}$')`;
}

/**
 * The adjusted count 2^56 / (2^56 - T) as Float64 (1 without sampling information): T from the
 * hex digits padded right to 14, 2^56 - T in UInt64, each side rounded once to Float64, like the
 * TypeScript reference.
 */
export function adjustedCountSql(col = 'TraceState'): Sql {
  const t = sql`reinterpretAsUInt64(reverse(unhex(rightPad(${thValue(col)}, 14, '0'))))`;
  return sql`if(${hasSamplingInfoSql(col)}, toFloat64(72057594037927936) / toFloat64(toUInt64(72057594037927936) - ${t}), 1.0)`;
}

/** Whether the data was weighted, and the share (0..1) of spans without sampling information. */
export interface SamplingInfo {
  weighted: boolean;
  spansWithoutSamplingInfo: number;
}

/**
 * Sampling information of the spans in [fromNs, toNs), or of the whole store (no range). The
 * threshold is read once per distinct TraceState, not per span: a sampler writes few distinct
 * values (measured on 1M spans, half of them `ot=th:8`: 20 ms of CPU instead of 215 ms for the
 * regular expressions on every span; unsampled data, one distinct '', costs a plain count).
 * Without a range the count is the table's (read from its parts, not its rows) and only spans
 * with a TraceState are grouped: at 10M unsampled spans 3-7 ms of CPU instead of 66-74 ms with
 * the time filter (every answer's `sampling` block; callers pass no range when theirs covers
 * every stored span, so the figures are the same).
 */
export async function selectSamplingInfo(
  store: Store,
  range?: { fromNs: bigint; toNs: bigint },
): Promise<SamplingInfo> {
  const withInfo = sql`sumIf(n, ts != '' AND ${hasSamplingInfoSql('ts')})`;
  const counted = range ? await countedSamplingInfo(store, range, withInfo) : null;
  if (counted) return counted;
  const rows = await store.query<{ spans: string; withInfo: string }>(
    range
      ? sql`
    SELECT toString(sum(n)) AS spans, toString(${withInfo}) AS withInfo
    FROM (SELECT TraceState AS ts, count() AS n FROM ${TRACES}
      WHERE ${inWindow(range.fromNs, range.toNs)} GROUP BY ts)`
      : sql`
    SELECT toString((SELECT count() FROM ${TRACES})) AS spans, toString(${withInfo}) AS withInfo
    FROM (SELECT TraceState AS ts, count() AS n FROM ${TRACES} WHERE TraceState != '' GROUP BY ts)`,
  );
  return toInfo(Number(rows[0]?.spans ?? 0), Number(rows[0]?.withInfo ?? 0));
}

const toInfo = (spans: number, withInfoN: number): SamplingInfo => ({
  weighted: withInfoN > 0,
  spansWithoutSamplingInfo: spans === 0 ? 0 : (spans - withInfoN) / spans,
});

/**
 * The same figures over a range from three small reads, when the spans table has its span
 * counts (span-counts.ts) and the range holds a whole 10 s bucket: the spans of its whole buckets
 * from the projection, those of the two slivers at its ends (under 10 s each, a few granules per
 * service and name) from their starts, and the spans with a TraceState grouped by it (a scan of
 * that column alone, empty on unsampled data). 25-35 ms an hour at 10M spans, against 110 ms
 * for grouping every span's TraceState. Null: take the one query.
 */
async function countedSamplingInfo(
  store: Store,
  range: { fromNs: bigint; toNs: bigint },
  withInfo: Sql,
): Promise<SamplingInfo | null> {
  const B = SPAN_COUNT_BUCKET_NS;
  if (!store.accelerators.spanCounts || range.fromNs < 0n) return null;
  const a = ((range.fromNs + B - 1n) / B) * B;
  const b = (range.toNs / B) * B;
  if (a >= b) return null;
  const [whole, ends, states] = await Promise.all([
    spansPerBucket(store, a, b, b - a),
    store.query<{ n: string }>(sql`
      SELECT toString(count()) AS n FROM ${TRACES}
      WHERE (${inWindow(range.fromNs, a)}) OR (${inWindow(b, range.toNs)})`),
    store.query<{ withInfo: string }>(sql`
      SELECT toString(${withInfo}) AS withInfo
      FROM (SELECT TraceState AS ts, count() AS n FROM ${TRACES}
        WHERE ${inWindow(range.fromNs, range.toNs)} AND TraceState != '' GROUP BY ts)`),
  ]);
  let spans = Number(ends[0]?.n ?? 0);
  for (const n of whole.values()) spans += Number(n);
  return toInfo(spans, Number(states[0]?.withInfo ?? 0));
}

/**
 * Adjusted counts above this weigh this much in weighted quantiles (counts use the exact
 * weight). ClickHouse's `quantilesExactWeightedInterpolated` takes unsigned integer weights and
 * sums them in UInt64: scaled by 1000 (QUANTILE_WEIGHT_SCALE), a weight of 2^56 (the largest
 * threshold) overflowed the cast and the sum, and the quantiles came back 0 or NaN (issue 25).
 * Capped at 2^30, one weight is at most ~1.1e12 and the sum fits in UInt64 up to ~1.7e7 calls
 * at the cap (~1.8e10 at 0.1% sampling). The cap changes a quantile only when one range mixes
 * different adjusted counts both above 2^30 (sampling probabilities under one in a billion),
 * and then only their relative weight.
 */
export const QUANTILE_WEIGHT_CAP = 2 ** 30;
/** Integer weights of the weighted quantiles: adjusted count x 1000, rounded. */
export const QUANTILE_WEIGHT_SCALE = 1000;

/** SQL text: the integer quantile weight of a Float64 adjusted count expression (capped). */
export function quantileWeight(weight: string, scale = QUANTILE_WEIGHT_SCALE): string {
  return `toUInt64(round(least(${weight}, ${QUANTILE_WEIGHT_CAP}) * ${scale}))`;
}

/**
 * SQL text: a weighted count, the sum of adjusted counts rounded, as Float64. Not a UInt32:
 * 400 fan-outs at `th:ffffff` (2^24 each) wrapped to 2,415,919,104, and at `th:ffffffff` to 0
 * (issue 25); a Float64 holds every sum exactly up to 2^53 and within 1e-16 beyond.
 */
export function weightedCount(sumExpr: string): string {
  return `round(${sumExpr})`;
}
