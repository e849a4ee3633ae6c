import { EPISODE_BUCKETS_PER_OCTAVE, type SeriesWindow } from './episodes';

/**
 * The mergeable state of an episode window: a fine log-latency histogram of calls, with each
 * bin's stored calls and calls weighted by their sampling adjusted count. Windows of any length
 * are sums of these histograms (per-10 s buckets stored once, or live rows), so a window built
 * from stored buckets equals the window built live from the same calls, bin for bin.
 *
 * What `detectEpisodes` needs is derived from it: the rank test's quarter-octave histogram
 * (unweighted) exactly, since a fine bin lies in exactly one coarse bucket
 * (floor(floor(32 x) / 8) = floor(4 x)); the weighted p50 / p99 as the geometric middle of the
 * fine bin holding the weighted quantile, so within half a bin (2^(1/64) - 1 = 1.09%) of a
 * latency in that bin.
 */

/** Fine bins per octave of nanoseconds (~2.2% wide). A multiple of EPISODE_BUCKETS_PER_OCTAVE. */
export const EPISODE_FINE_BINS_PER_OCTAVE = 32;

const FINE_PER_COARSE = EPISODE_FINE_BINS_PER_OCTAVE / EPISODE_BUCKETS_PER_OCTAVE;

/** Fine bin of a duration (the SQL builders compute the same expression). */
export function fineLatencyBin(durationNs: number): number {
  return Math.floor(Math.log2(Math.max(durationNs, 1)) * EPISODE_FINE_BINS_PER_OCTAVE);
}

/** A fine histogram: bin ids (any order, may repeat when not yet merged) and their sums. */
export interface FineHistogram {
  bins: readonly number[];
  calls: readonly number[];
  weights: readonly number[];
}

/** Adds `h` into the map bin -> [calls, weighted calls]. */
export function addFineHistogram(into: Map<number, [number, number]>, h: FineHistogram): void {
  h.bins.forEach((b, i) => {
    const cur = into.get(b);
    const c = h.calls[i] ?? 0;
    const w = h.weights[i] ?? 0;
    if (cur) {
      cur[0] += c;
      cur[1] += w;
    } else into.set(b, [c, w]);
  });
}

/** The latency (ms) representing a fine bin: its geometric middle. */
function binMiddleMs(bin: number): number {
  return 2 ** ((bin + 0.5) / EPISODE_FINE_BINS_PER_OCTAVE) / 1e6;
}

/** Weighted quantile (ms) of sorted bins: the first bin whose cumulative weight reaches it. */
function weightedQuantileMs(
  sorted: readonly (readonly [number, number])[],
  total: number,
  level: number,
): number {
  if (!(total > 0)) return 0;
  let acc = 0;
  for (const [bin, w] of sorted) {
    acc += w;
    if (acc >= level * total) return binMiddleMs(bin);
  }
  const last = sorted[sorted.length - 1];
  return last ? binMiddleMs(last[0]) : 0;
}

/** The SeriesWindow of a merged fine histogram (map bin -> [calls, weighted calls]). */
export function windowFromFineHistogram(
  window: number,
  hist: ReadonlyMap<number, readonly [number, number]>,
): SeriesWindow {
  const bins = [...hist.keys()].sort((a, b) => a - b);
  let calls = 0;
  let weightedCalls = 0;
  const coarse = new Map<number, number>();
  const weighted: [number, number][] = [];
  for (const b of bins) {
    const [c, w] = hist.get(b) ?? [0, 0];
    calls += c;
    weightedCalls += w;
    weighted.push([b, w]);
    const k = Math.floor(b / FINE_PER_COARSE);
    if (c > 0) coarse.set(k, (coarse.get(k) ?? 0) + c);
  }
  const buckets = [...coarse.keys()];
  return {
    window,
    calls,
    weightedCalls,
    p50Ms: weightedQuantileMs(weighted, weightedCalls, 0.5),
    p99Ms: weightedQuantileMs(weighted, weightedCalls, 0.99),
    buckets,
    counts: buckets.map((k) => coarse.get(k) ?? 0),
  };
}
