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

/** Whether the bins ascend strictly (a `sumMap` result's do). */
function ascending(bins: readonly number[]): boolean {
  for (let i = 1; i < bins.length; i++)
    if ((bins[i] as number) <= (bins[i - 1] as number)) return false;
  return true;
}

/**
 * The sum of fine histograms whose bins each ascend strictly (stored buckets and `sumMap` rows),
 * merged in order as sorted lists: the same bins and sums, added in the same order, as
 * addFineHistogram into a map then windowFromFineHistogram's sort, without a map entry per bin
 * (a window of two stored buckets is the common case of an hour's range). Null when some
 * histogram's bins do not ascend: use the map.
 */
export function mergeSortedHistograms(hs: readonly FineHistogram[]): FineHistogram | null {
  if (!hs.every((h) => ascending(h.bins))) return null;
  let acc: FineHistogram = { bins: [], calls: [], weights: [] };
  for (const h of hs) {
    const bins: number[] = [];
    const calls: number[] = [];
    const weights: number[] = [];
    let i = 0;
    let j = 0;
    while (i < acc.bins.length || j < h.bins.length) {
      const a = i < acc.bins.length ? (acc.bins[i] as number) : Infinity;
      const b = j < h.bins.length ? (h.bins[j] as number) : Infinity;
      if (a < b) {
        bins.push(a);
        calls.push(acc.calls[i] ?? 0);
        weights.push(acc.weights[i] ?? 0);
        i++;
      } else if (b < a) {
        bins.push(b);
        calls.push(h.calls[j] ?? 0);
        weights.push(h.weights[j] ?? 0);
        j++;
      } else {
        bins.push(a);
        calls.push((acc.calls[i] ?? 0) + (h.calls[j] ?? 0));
        weights.push((acc.weights[i] ?? 0) + (h.weights[j] ?? 0));
        i++;
        j++;
      }
    }
    acc = { bins, calls, weights };
  }
  return acc;
}

/** The latency (ms) representing a fine bin: its geometric middle. */
function binMiddleMs(bin: number): number {
  return 2 ** ((bin + 0.5) / EPISODE_FINE_BINS_PER_OCTAVE) / 1e6;
}

/** The SeriesWindow of a merged fine histogram (map bin -> [calls, weighted calls]). */
export function windowFromFineHistogram(
  window: number,
  hist: ReadonlyMap<number, readonly [number, number]>,
): SeriesWindow {
  const bins = [...hist.keys()].sort((a, b) => a - b);
  const calls = bins.map((b) => hist.get(b)?.[0] ?? 0);
  const weights = bins.map((b) => hist.get(b)?.[1] ?? 0);
  return windowFromBins(window, { bins, calls, weights });
}

/**
 * The SeriesWindow of a fine histogram whose bins are ascending and distinct (as `sumMap`
 * returns them): the fast path for a window read whole from one query, no map built.
 */
export function windowFromBins(window: number, h: FineHistogram): SeriesWindow {
  let calls = 0;
  let weightedCalls = 0;
  const n = h.bins.length;
  for (let i = 0; i < n; i++) {
    calls += h.calls[i] ?? 0;
    weightedCalls += h.weights[i] ?? 0;
  }
  const buckets: number[] = [];
  const counts: number[] = [];
  let p50Ms = 0;
  let p99Ms = 0;
  let acc = 0;
  for (let i = 0; i < n; i++) {
    const bin = h.bins[i] ?? 0;
    const c = h.calls[i] ?? 0;
    acc += h.weights[i] ?? 0;
    // The first bin whose cumulative weight reaches the level holds the weighted quantile.
    if (p50Ms === 0 && weightedCalls > 0 && acc >= 0.5 * weightedCalls) p50Ms = binMiddleMs(bin);
    if (p99Ms === 0 && weightedCalls > 0 && acc >= 0.99 * weightedCalls) p99Ms = binMiddleMs(bin);
    if (c <= 0) continue;
    const k = Math.floor(bin / FINE_PER_COARSE);
    if (buckets[buckets.length - 1] === k)
      counts[counts.length - 1] = (counts[counts.length - 1] ?? 0) + c;
    else {
      buckets.push(k);
      counts.push(c);
    }
  }
  // Rounding can leave the last cumulative weight a hair under the level: the top bin then.
  const top = n > 0 ? binMiddleMs(h.bins[n - 1] ?? 0) : 0;
  if (weightedCalls > 0) {
    if (p50Ms === 0) p50Ms = top;
    if (p99Ms === 0) p99Ms = top;
  }
  return { window, calls, weightedCalls, p50Ms, p99Ms, buckets, counts };
}
