import { BACKGROUND_LOOKBACK_NS, EDGE_SLACK_NS } from '@tailscope/analysis';
import type { Store } from '../engine/client';
import { inWindow, ns } from '../sql/ctes';
import { sql } from '../sql/template';
import { TRACES } from './tables';

/**
 * The data version of a range for the answer cache (cache/answer-cache.ts): the spans the store
 * holds in every instant an answer over [from, to) can read, as a count and its first and last
 * timestamps. An answer reads the range plus the edge margin after it (fan-outs and calls that
 * start in range and end after it) and, before it, the edge margin and the background lookback
 * (background activity that overlaps the range's calls); a span arriving anywhere in that window
 * changes the count, so no cached answer outlives the data it was computed from. Spans are only
 * appended (a retention TTL drops whole old days, which also changes the count).
 *
 * `exact` is that whole window; `inner` leaves out the edge margin after the range's end, where
 * under steady ingest every new span of a range ending within a minute of now lands (the answer
 * cache's MARGIN_GRACE_MS). One scan of the Timestamp column of the window: ~1 ms per 100k spans.
 */
export async function rangeVersion(
  store: Store,
  range: { fromNs: bigint; toNs: bigint },
): Promise<{ exact: string; inner: string }> {
  const lo = range.fromNs - BACKGROUND_LOOKBACK_NS - EDGE_SLACK_NS;
  const hi = range.toNs + EDGE_SLACK_NS;
  const end = sql`fromUnixTimestamp64Nano(${ns(range.toNs)})`;
  const rows = await store.query<{ n: string; lo: string; hi: string; i: string; ihi: string }>(sql`
    SELECT toString(count()) AS n, toString(toUnixTimestamp64Nano(min(Timestamp))) AS lo,
      toString(toUnixTimestamp64Nano(max(Timestamp))) AS hi,
      toString(countIf(Timestamp < ${end})) AS i,
      toString(toUnixTimestamp64Nano(maxIf(Timestamp, Timestamp < ${end}))) AS ihi
    FROM ${TRACES} WHERE ${inWindow(lo, hi)}`);
  const r = rows[0];
  if (!r) return { exact: '0', inner: '0' };
  return { exact: `${r.n}:${r.lo}:${r.hi}`, inner: `${r.i}:${r.lo}:${r.ihi}` };
}
