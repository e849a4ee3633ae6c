import { benjaminiHochberg, logFactorial } from './stats';
import { quantileInclusive } from './quantile';

/**
 * Episodes against a series' own history (DESIGN.md "Definitions": Episode): a series (calls
 * into one service on one host, or one caller -> callee edge) is judged window by window
 * against its own baseline, so a single-replica service that slows down is found without a
 * second host to compare with.
 *
 * Per window the test is a rank test on a log-latency histogram: the window's calls and the
 * baseline's calls are pooled, split at the pooled median and again at the pooled p95 bucket,
 * and the share of the window's calls above each split is compared with the baseline's by the
 * one-sided hypergeometric (Fisher) test. Under "the window is like its baseline" the calls are
 * exchangeable, the split depends only on the pooled multiset, so the test is exact
 * (conservative through discreteness) whatever the latency distribution: no normality, no
 * assumption on how noisy a window's p99 is. Two splits catch both a whole-distribution shift
 * (median) and a tail-only fault (p95); Bonferroni joins them (p = 2 min).
 *
 * The baseline is the series' other windows in the range, after a robust screen: windows whose
 * log p50 or log p99 lies more than `screenMads` scaled MADs above the median of the windows
 * are left out of every baseline, so a long episode does not become its own baseline.
 * Benjamini-Hochberg runs over every window of every series tested; a window is flagged when
 * its q-value is at most `alpha` and its p50 or p99 is at least `minRatio` times the baseline's
 * median window p50 / p99 (a significant 2% slowdown over a million calls is not an episode).
 * Adjacent flagged windows of a series merge.
 */

/** One window of a series. Counts unweighted (the test's evidence); latencies in ms. */
export interface SeriesWindow {
  /** Window index: window start / window length (epoch-aligned). */
  window: number;
  /** Calls stored (sampled spans, each once). */
  calls: number;
  /** Calls weighted by their adjusted count (= calls without sampling). */
  weightedCalls: number;
  /** Weighted quantiles of the window's call latency, ms. */
  p50Ms: number;
  p99Ms: number;
  /** Log-latency histogram: bucket ids (ascending, distinct) and unweighted counts. */
  buckets: readonly number[];
  counts: readonly number[];
}

/** A series: a stable key (its identity; output order never depends on input order). */
export interface Series {
  key: string;
  windows: readonly SeriesWindow[];
}

export interface EpisodeDetectOptions {
  /** Window length, ms (> 0). */
  windowMs: number;
  /** FDR level of Benjamini-Hochberg (default 0.05). */
  alpha?: number;
  /** Windows with fewer stored calls are not tested (default 5). */
  minCalls?: number;
  /** Series with fewer tested windows are not tested (default 6). */
  minWindows?: number;
  /** Least slowdown (window p50 or p99 over the baseline's) that makes an episode (default 1.5). */
  minRatio?: number;
  /** Screen of the baseline, in scaled MADs of log latency (default 3.5). */
  screenMads?: number;
}

export interface DetectedEpisode {
  key: string;
  /** Window start of the first and end of the last flagged window, epoch ms. */
  fromMs: number;
  toMs: number;
  /** The worst (largest) window p99 in the episode, ms. */
  p99Ms: number;
  /** The median window p99 of the series' baseline windows, ms. */
  baselineP99Ms: number;
  /** p99Ms / baselineP99Ms. */
  ratio: number;
  /** Weighted calls in the episode's windows. */
  calls: number;
  /** Smallest BH q-value among the episode's windows. */
  qValue: number;
}

export interface EpisodeDetection {
  episodes: DetectedEpisode[];
  /** Windows tested (the BH family size). */
  windowsTested: number;
}

/**
 * One-sided upper tail P(X >= a) of X ~ Hypergeometric(total n, successes k, draws d). One term
 * from log-factorials, the rest by the ratio of neighbouring terms, summed away from the mode
 * until negligible: from a upward when a lies above the mode (the small p-values that matter),
 * else 1 minus the lower tail from a - 1 downward, which then holds the few terms (most windows
 * of a steady series sit near the mode: summing their long upper side cost 40% of an episodes
 * judgement's JavaScript at 10M spans). Within 1e-12 of the direct sum.
 */
export function hypergeometricUpperTail(a: number, n: number, k: number, d: number): number {
  const hi = Math.min(k, d);
  const lo = Math.max(0, d - (n - k));
  if (a <= lo) return 1;
  if (a > hi) return 0;
  const rest = n - k - d;
  const logTerm = (x: number): number =>
    logFactorial(k) +
    logFactorial(n - k) +
    logFactorial(d) +
    logFactorial(n - d) -
    logFactorial(n) -
    logFactorial(x) -
    logFactorial(k - x) -
    logFactorial(d - x) -
    logFactorial(rest + x);
  const mode = Math.floor(((k + 1) * (d + 1)) / (n + 2));
  if (a > mode) {
    // Terms only shrink past the mode.
    let term = Math.exp(logTerm(a));
    let sum = term;
    for (let x = a; x < hi; x++) {
      term *= ((k - x) * (d - x)) / ((x + 1) * (rest + x + 1));
      sum += term;
      if (term < sum * 1e-16) break;
    }
    return Math.min(1, sum);
  }
  // Below the mode terms shrink going down: the lower tail P(X <= a - 1).
  let term = Math.exp(logTerm(a - 1));
  let sum = term;
  for (let x = a - 1; x > lo; x--) {
    term *= (x * (rest + x)) / ((k - x + 1) * (d - x + 1));
    sum += term;
    if (term < sum * 1e-16) break;
  }
  return Math.min(1, Math.max(0, 1 - sum));
}

/** Median and scaled MAD (x 1.4826, a normal's sigma) of values; NaN for none. */
function medianMad(values: readonly number[]): { median: number; mad: number } {
  const s = Float64Array.from(values).sort();
  if (s.length === 0) return { median: NaN, mad: NaN };
  const median = quantileInclusive(s, 0.5);
  const dev = Float64Array.from(s, (v) => Math.abs(v - median)).sort();
  return { median, mad: 1.4826 * quantileInclusive(dev, 0.5) };
}

/** Indexes of windows fit to be baseline: not slow outliers by log p50 or log p99. */
function screenBaseline(ws: readonly SeriesWindow[], mads: number): boolean[] {
  const keep = ws.map(() => true);
  for (const pick of [(w: SeriesWindow) => w.p50Ms, (w: SeriesWindow) => w.p99Ms]) {
    const logs = ws.map((w) => Math.log(Math.max(pick(w), 1e-6)));
    const { median, mad } = medianMad(logs);
    // A floor of log(1.05): a perfectly steady series must not call every 6% wobble an outlier.
    const limit = median + mads * Math.max(mad, Math.log(1.05));
    logs.forEach((v, i) => {
      if (v > limit) keep[i] = false;
    });
  }
  return keep;
}

type Histogram = Map<number, number>;

function addHistogram(h: Histogram, w: SeriesWindow, sign: 1 | -1): void {
  w.buckets.forEach((b, i) => h.set(b, (h.get(b) ?? 0) + sign * (w.counts[i] ?? 0)));
}

/**
 * p-value of "window w is slower than baseline h" (h excludes w): Bonferroni of the one-sided
 * hypergeometric tests at the pooled median and pooled p95 buckets.
 */
function windowPValue(w: SeriesWindow, baseline: Histogram, baselineCalls: number): number {
  const pooled = new Map(baseline);
  addHistogram(pooled, w, 1);
  const ids = [...pooled.keys()].sort((a, b) => a - b);
  const n = baselineCalls + w.calls;
  let best = 1;
  for (const level of [0.5, 0.95]) {
    // Split after the bucket holding the pooled level-quantile: "above" is every later bucket.
    let below = 0;
    let split = ids[ids.length - 1] ?? 0;
    for (const id of ids) {
      below += pooled.get(id) ?? 0;
      if (below >= level * n) {
        split = id;
        break;
      }
    }
    const above = n - below;
    if (above <= 0) continue;
    let a = 0;
    w.buckets.forEach((b, i) => {
      if (b > split) a += w.counts[i] ?? 0;
    });
    best = Math.min(best, hypergeometricUpperTail(a, n, above, w.calls));
  }
  return Math.min(1, 2 * best);
}

interface Tested {
  key: string;
  w: SeriesWindow;
  p: number;
  baselineP50Ms: number;
  baselineP99Ms: number;
}

/** The windows of one series that can be tested, each with its p-value and baseline. */
function testSeries(s: Series, o: Required<EpisodeDetectOptions>): Tested[] {
  const ws = [...s.windows]
    .filter((w) => w.calls >= o.minCalls)
    .sort((a, b) => a.window - b.window);
  if (ws.length < o.minWindows) return [];
  const keep = screenBaseline(ws, o.screenMads);
  const base = ws.filter((_, i) => keep[i]);
  if (base.length < Math.max(3, Math.floor(o.minWindows / 2))) return [];
  const all: Histogram = new Map();
  let allCalls = 0;
  for (const w of base) {
    addHistogram(all, w, 1);
    allCalls += w.calls;
  }
  const baselineP50Ms = medianMad(base.map((w) => w.p50Ms)).median;
  const baselineP99Ms = medianMad(base.map((w) => w.p99Ms)).median;
  return ws.map((w, i) => {
    let h = all;
    let calls = allCalls;
    if (keep[i]) {
      h = new Map(all);
      addHistogram(h, w, -1);
      calls -= w.calls;
    }
    return { key: s.key, w, p: windowPValue(w, h, calls), baselineP50Ms, baselineP99Ms };
  });
}

/**
 * Episodes of every series (see the module comment). Output sorted by ratio (worst first), then
 * key and start: independent of the order of `series` and of windows within a series.
 * O(W (B + log W)) for W windows tested and B histogram buckets, plus the hypergeometric tails.
 */
export function detectEpisodes(
  series: readonly Series[],
  opts: EpisodeDetectOptions,
): EpisodeDetection {
  if (!(opts.windowMs > 0)) throw new RangeError(`windowMs must be > 0, got ${opts.windowMs}`);
  const o: Required<EpisodeDetectOptions> = {
    alpha: 0.05,
    minCalls: 5,
    minWindows: 6,
    minRatio: 1.5,
    screenMads: 3.5,
    ...opts,
  };
  const tested = [...series]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .flatMap((s) => testSeries(s, o));
  const q = benjaminiHochberg(tested.map((t) => t.p));
  const flagged = tested
    .map((t, i) => ({ ...t, q: q[i] as number }))
    .filter(
      (t) =>
        t.q <= o.alpha &&
        (t.w.p99Ms >= o.minRatio * t.baselineP99Ms || t.w.p50Ms >= o.minRatio * t.baselineP50Ms),
    );
  return { episodes: mergeFlagged(flagged, o.windowMs), windowsTested: tested.length };
}

/** Runs of consecutive flagged windows of one series, one episode each. */
function mergeFlagged(flagged: readonly (Tested & { q: number })[], windowMs: number) {
  const out: (DetectedEpisode & { last: number })[] = [];
  let cur: (DetectedEpisode & { last: number }) | null = null;
  for (const t of flagged) {
    if (cur && cur.key === t.key && cur.last + 1 === t.w.window) {
      cur.last = t.w.window;
      cur.toMs = (t.w.window + 1) * windowMs;
      cur.p99Ms = Math.max(cur.p99Ms, t.w.p99Ms);
      cur.calls += t.w.weightedCalls;
      cur.qValue = Math.min(cur.qValue, t.q);
      continue;
    }
    cur = {
      key: t.key,
      last: t.w.window,
      fromMs: t.w.window * windowMs,
      toMs: (t.w.window + 1) * windowMs,
      p99Ms: t.w.p99Ms,
      baselineP99Ms: t.baselineP99Ms,
      ratio: NaN,
      calls: t.w.weightedCalls,
      qValue: t.q,
    };
    out.push(cur);
  }
  const episodes = out.map(({ last: _last, ...e }) => ({
    ...e,
    ratio: e.baselineP99Ms > 0 ? e.p99Ms / e.baselineP99Ms : Infinity,
  }));
  return episodes.sort(
    (a, b) =>
      b.ratio - a.ratio || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) || a.fromMs - b.fromMs,
  );
}

/** Log-latency histogram bucket of a duration: quarter-octaves of nanoseconds (~19% wide). */
export const EPISODE_BUCKETS_PER_OCTAVE = 4;
export function latencyBucket(durationNs: number): number {
  return Math.floor(Math.log2(Math.max(durationNs, 1)) * EPISODE_BUCKETS_PER_OCTAVE);
}

/** Window lengths the episodes query picks from, seconds. */
// No 15 s: every window is a whole number of the stored 10 s buckets (the API's
// call-buckets-tables.ts), so no range ("the last hour") falls back to computing every call live.
const NICE_WINDOWS_S = [10, 20, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21_600, 86_400];
/** Most windows one episodes query asks for. */
export const MAX_EPISODE_WINDOWS = 300;

/**
 * The window of an episodes query over `rangeMs`: the shortest of 10 s, 20 s, ... 1 d giving at
 * most 300 windows (so about 120-300 windows, fewer for ranges under 50 minutes: never under
 * 10 s, where a window holds too few calls to judge); whole days past 300 days. Seconds.
 */
export function episodeWindowSeconds(rangeMs: number): number {
  const s = Math.max(0, rangeMs) / 1000;
  for (const w of NICE_WINDOWS_S) if (s / w <= MAX_EPISODE_WINDOWS) return w;
  return Math.ceil(s / MAX_EPISODE_WINDOWS / 86_400) * 86_400;
}

/**
 * A window of raw call latencies as `detectEpisodes` wants it (unweighted): for tests, and
 * callers that hold calls in memory. `durationsNs` need not be sorted. O(n log n).
 */
export function seriesWindow(window: number, durationsNs: readonly number[]): SeriesWindow {
  const sorted = Float64Array.from(durationsNs).sort();
  const hist = new Map<number, number>();
  for (const d of sorted) hist.set(latencyBucket(d), (hist.get(latencyBucket(d)) ?? 0) + 1);
  const buckets = [...hist.keys()].sort((a, b) => a - b);
  const q = (level: number): number => (sorted.length ? quantileInclusive(sorted, level) / 1e6 : 0);
  return {
    window,
    calls: sorted.length,
    weightedCalls: sorted.length,
    p50Ms: q(0.5),
    p99Ms: q(0.99),
    buckets,
    counts: buckets.map((b) => hist.get(b) ?? 0),
  };
}
