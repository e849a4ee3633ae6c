import type { Stats } from '../api/contracts';
import { nanoToMs, resolveRange, settleRange, type Filters, type TimeRange } from './filters';

export type RangeState =
  | { state: 'loading' }
  | { state: 'error'; error: Error }
  | { state: 'empty'; stats: Stats }
  | {
      state: 'ready';
      range: TimeRange;
      stats: Stats;
      key: string;
      /** The range ends where the stored data does, before the newest span (settleRange). */
      settled: boolean;
    };

/** useRange's answer from the store's statistics, the URL's filters and the clock. */
export function rangeOf(
  s: Stats,
  filters: Filters,
  nowMs: number,
  generation: number,
  opts: { toNewest?: boolean } = {},
): Exclude<RangeState, { state: 'loading' | 'error' }> {
  const oldest = nanoToMs(s.oldestUnixNano);
  const newest = nanoToMs(s.newestUnixNano);
  if (s.spans === 0 || oldest === null || newest === null) return { state: 'empty', stats: s };
  const resolved = resolveRange(filters, nowMs, { oldestMs: oldest, newestMs: newest });
  if (!resolved) return { state: 'empty', stats: s };
  const settledMs = opts.toNewest === true ? null : nanoToMs(s.settledUnixNano ?? null);
  const { cut, ...range } = settleRange(resolved, filters, { newestMs: newest, settledMs }, nowMs);
  return {
    state: 'ready',
    range,
    stats: s,
    key: `${generation}:${Math.floor(range.fromMs)}-${Math.ceil(range.toMs)}`,
    settled: cut,
  };
}
