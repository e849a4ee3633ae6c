import { OT_TRACESTATE_KEY, THRESHOLD_SUBKEY } from '@tailscope/analysis';
import type { Store } from './client';
import { inWindow } from './sql-ctes';
import { raw, sql, type Sql } from './sql';
import { TRACES } from './tables';

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
  const spans = Number(rows[0]?.spans ?? 0);
  const withInfoN = Number(rows[0]?.withInfo ?? 0);
  return {
    weighted: withInfoN > 0,
    spansWithoutSamplingInfo: spans === 0 ? 0 : (spans - withInfoN) / spans,
  };
}
