import type { TimeRange } from '../foundation';
import { selectStoredBounds, type Store } from '../store';

/**
 * Instants ClickHouse DateTime64(9) can hold, with a day's room for the edge margins the
 * queries add around a range (Int64 ns: 1677-09-21 to 2262-04-11).
 */
const DAY_NS = 86_400_000_000_000n;
const NS_FLOOR = -(2n ** 63n) + DAY_NS;
const NS_CEIL = 2n ** 63n - 1n - DAY_NS;

/**
 * The part of [from, to) the store holds spans in, so no
 * query's cost grows with the range asked rather than the data: `from=0000-01-01&to=9999-12-31`
 * on a store of one span reads that span's instant, not ten thousand years of 10-minute chunks
 * (which once allocated an array per chunk and took the process down). fromMs/toMs stay as
 * asked, for the answer to echo; fromNs/toNs become the stored part (empty: equal).
 */
export async function clampRange(store: Store, range: TimeRange): Promise<TimeRange> {
  return (await clampRangeCovering(store, range)).range;
}

/**
 * clampRange, and whether the clamped range holds every stored span (its reads may then drop
 * the time filter). Bounds past the engine's DateTime64 limits are not whole.
 */
export async function clampRangeCovering(
  store: Store,
  range: TimeRange,
): Promise<{ range: TimeRange; whole: boolean }> {
  const bounds = await selectStoredBounds(store);
  const clamp = (v: bigint): bigint => (v < NS_FLOOR ? NS_FLOOR : v > NS_CEIL ? NS_CEIL : v);
  if (!bounds) return { range: { ...range, fromNs: 0n, toNs: 0n }, whole: false };
  const lo = clamp(bounds.minNs);
  const hi = clamp(bounds.maxNs + 1n);
  const fromNs = range.fromNs > lo ? range.fromNs : lo;
  const toNs = range.toNs < hi ? range.toNs : hi;
  const whole = fromNs === bounds.minNs && toNs === bounds.maxNs + 1n;
  return fromNs < toNs
    ? { range: { ...range, fromNs, toNs }, whole }
    : { range: { ...range, fromNs: lo, toNs: lo }, whole: false };
}
