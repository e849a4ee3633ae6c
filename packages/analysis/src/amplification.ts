import { countAtMost, quantileInclusive, sortAscending } from './quantile';
import { wilsonInterval } from './stats';
import type { LeafCalls } from './types';

/**
 * Tail amplification (DESIGN.md "Amplification"): observed P(all-leaves time > t) across
 * fan-outs against the independence prediction 1 - F(t)^N, F the empirical CDF of the
 * operation's single-call latency (`durationMs`), N each fan-out's own width, so the prediction
 * is the average of 1 - F(t)^N_f over the fan-outs.
 */

export type Verdict = 'independent' | 'correlated' | 'insufficient-data';

/** Fewer fan-outs than this, or fewer expected tail fan-outs than MIN_EXPECTED_TAIL: no verdict. */
export const MIN_FANOUTS_FOR_VERDICT = 20;
export const MIN_EXPECTED_TAIL = 5;

/**
 * The verdict rule, shared by the SQL path and the TypeScript path:
 * - 'insufficient-data' when there are fewer than 20 fan-outs, when fewer than 5 tail fan-outs
 *   are expected (fanouts * predicted < 5), or when the prediction is not a number;
 * - 'correlated' when the Wilson 95% interval of the observed tail probability
 *   (tailFanouts / fanouts) lies entirely below the prediction: the calls of a request are
 *   slow together more than chance allows;
 * - 'independent' otherwise (the prediction is inside the interval, or the observed
 *   probability is above it, which is no evidence of shared slowness).
 * O(1).
 */
export function amplificationVerdict(
  tailFanouts: number,
  fanouts: number,
  predicted: number,
): Verdict {
  if (!Number.isFinite(predicted) || fanouts < MIN_FANOUTS_FOR_VERDICT) return 'insufficient-data';
  if (fanouts * predicted < MIN_EXPECTED_TAIL) return 'insufficient-data';
  return wilsonInterval(tailFanouts, fanouts).high < predicted ? 'correlated' : 'independent';
}

/** Fan-outs and tail fan-outs at one width. */
export interface WidthCount {
  width: number;
  fanouts: number;
  tailFanouts: number;
}

/**
 * Fan-out counts per width (ascending), with how many had an all-leaves time above t.
 * O(F log F).
 */
export function widthHistogram(
  width: ArrayLike<number>,
  allLeavesMs: ArrayLike<number>,
  t: number,
): WidthCount[] {
  const byWidth = new Map<number, WidthCount>();
  for (let i = 0; i < width.length; i++) {
    const w = width[i] as number;
    let e = byWidth.get(w);
    if (!e) byWidth.set(w, (e = { width: w, fanouts: 0, tailFanouts: 0 }));
    e.fanouts++;
    if ((allLeavesMs[i] as number) > t) e.tailFanouts++;
  }
  return [...byWidth.values()].sort((a, b) => a.width - b.width);
}

/**
 * The independence prediction averaged over the fan-outs' own widths:
 * sum over widths of fanouts_w * (1 - F^w), divided by the fan-outs, summed in ascending width
 * order (the SQL sums in the same order). `cdf` = F(t) in [0, 1]. O(widths). NaN when empty.
 */
export function predictedTailProbability(hist: readonly WidthCount[], cdf: number): number {
  let sum = 0;
  let n = 0;
  for (const h of hist) {
    sum += h.fanouts * (1 - Math.pow(cdf, h.width));
    n += h.fanouts;
  }
  return n === 0 ? NaN : sum / n;
}

export interface Amplification {
  /** t, ms: the requested threshold, else the operation's single-call p99 (type 7). */
  thresholdMs: number;
  /** Share of fan-outs whose all-leaves time is above t. */
  observedTailProbability: number;
  /** Mean over fan-outs of 1 - F(t)^N. */
  predictedTailProbability: number;
  verdict: Verdict;
  fanouts: number;
  tailFanouts: number;
  /** Wilson 95% interval of the observed probability. */
  observedLow: number;
  observedHigh: number;
  /** F(t): share of single calls with latency <= t. */
  singleCallCdf: number;
}

/** Assembles the amplification record from counts (the SQL path returns exactly these). O(widths). */
export function amplificationFromCounts(
  thresholdMs: number,
  callsAtMost: number,
  calls: number,
  hist: readonly WidthCount[],
): Amplification {
  const cdf = calls === 0 ? NaN : callsAtMost / calls;
  let fanouts = 0;
  let tailFanouts = 0;
  for (const h of hist) {
    fanouts += h.fanouts;
    tailFanouts += h.tailFanouts;
  }
  const predicted = predictedTailProbability(hist, cdf);
  const ci = wilsonInterval(tailFanouts, fanouts);
  return {
    thresholdMs,
    observedTailProbability: fanouts === 0 ? NaN : tailFanouts / fanouts,
    predictedTailProbability: predicted,
    verdict: amplificationVerdict(tailFanouts, fanouts, predicted),
    fanouts,
    tailFanouts,
    observedLow: ci.low,
    observedHigh: ci.high,
    singleCallCdf: cdf,
  };
}

/**
 * Amplification of one operation from its leaf calls and per-fan-out all-leaves times
 * (`fanoutMaxima(calls).allLeavesMs` or `fanoutTimes(...).allLeavesMs`). Without `thresholdMs`
 * the threshold is the single-call p99. O(calls log calls).
 */
export function amplification(
  calls: LeafCalls,
  allLeavesMs: ArrayLike<number>,
  thresholdMs?: number,
): { amplification: Amplification; hist: WidthCount[] } {
  const durations = sortAscending(calls.durationMs);
  const t = thresholdMs ?? quantileInclusive(durations, 0.99);
  const width = new Uint32Array(calls.fanoutOffsets.length - 1);
  for (let i = 0; i < width.length; i++) {
    width[i] = (calls.fanoutOffsets[i + 1] as number) - (calls.fanoutOffsets[i] as number);
  }
  const hist = widthHistogram(width, allLeavesMs, t);
  return {
    amplification: amplificationFromCounts(t, countAtMost(durations, t), durations.length, hist),
    hist,
  };
}

/** One point of the amplification curve; `observed` only where the data has that width. */
export interface CurvePoint {
  width: number;
  observed?: number;
  predicted: number;
  /** Fan-outs of this width in the data (present with `observed`). */
  fanouts?: number;
}

/** Widths at which the curve is always predicted, whatever widths the data has. */
export const CURVE_WIDTHS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000] as const;

/**
 * The amplification curve: for every width in the data, the observed tail probability of
 * fan-outs of that width; for those widths and CURVE_WIDTHS, the prediction 1 - F(t)^N.
 * Ascending widths. O(widths log widths).
 */
export function amplificationCurve(hist: readonly WidthCount[], cdf: number): CurvePoint[] {
  const points = new Map<number, CurvePoint>();
  for (const w of CURVE_WIDTHS) points.set(w, { width: w, predicted: 1 - Math.pow(cdf, w) });
  for (const h of hist) {
    points.set(h.width, {
      width: h.width,
      observed: h.tailFanouts / h.fanouts,
      predicted: 1 - Math.pow(cdf, h.width),
      fanouts: h.fanouts,
    });
  }
  return [...points.values()].sort((a, b) => a.width - b.width);
}
