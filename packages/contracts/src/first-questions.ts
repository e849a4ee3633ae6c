import { POLICY_SPECS } from '@tailscope/analysis';

/**
 * What the dashboard asks first, shared by the dashboard (apps/web) and the server's warm answers
 * (apps/api/src/server/warm-answers.ts), which ask the same questions in the background so a
 * person's first visit finds them answered: the order of fan-out operations (worst first), the
 * distinct leaves whose stragglers the Overview attributes, how many of an operation's leaf calls
 * it loads, the host heatmap's window, the
 * What-if page's default policy, and the range "All data" resolves to while spans arrive. One definition, so the two ask alike; the
 * dashboard's range (apps/web/src/state/filters.ts, resolveRange then settleRange) is checked
 * against allDataRange by the browser test warm-answers (every first answer served warm).
 */

/** The fields of a fan-out operation the ranking reads (the API's Fanout, or the web's view of it). */
export interface RankedOp {
  leafService: string;
  leafOperation: string;
  requests: number;
  curve: readonly { width: number; predicted: number }[];
  amplification: { observedTailProbability: number; singleCallCdf?: number | undefined };
}

/** P(one call > t): 1 - F(t) from the API, else the width-1 point of the curve, else 1%. */
function callTailProbability(op: RankedOp): number {
  const cdf = op.amplification.singleCallCdf;
  if (cdf !== undefined && cdf < 1) return 1 - cdf;
  const one = op.curve.find((c) => c.width === 1);
  return one && one.predicted > 0 ? one.predicted : 0.01;
}

/**
 * Tail amplification: how many times more likely a request (all leaves) is than a single call
 * to exceed the threshold t. The default t is the call p99, so a factor of 63 means 63% of
 * requests are slower than 99% of calls.
 */
export function tailAmplification(op: RankedOp): number {
  return op.amplification.observedTailProbability / callTailProbability(op);
}

/** Operations worst first by tail amplification, then by request count. */
export function rankOperations<T extends RankedOp>(ops: readonly T[]): T[] {
  return [...ops].sort(
    (a, b) => tailAmplification(b) - tailAmplification(a) || b.requests - a.requests,
  );
}

/** The first operation per leaf (service, operation), in the given order. */
export function distinctLeaves<T extends RankedOp>(ops: readonly T[]): T[] {
  const seen = new Set<string>();
  return ops.filter((o) => {
    const key = JSON.stringify([o.leafService, o.leafOperation]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The leaf calls the dashboard loads into its simulator at most. Packed, a call is ~28 bytes
 * (and ~3x that once prepared in the browser), so a million calls stay within the answer cache
 * (64 MB by default) and a tab's memory; 10M spans of one 100-wide operation are 5M calls, which
 * took 12-19 s to read and were too large to keep.
 */
export const LEAF_CALL_BUDGET = 1_000_000;

/** The API's own cap on an operation's fan-outs (`maxFanouts` default of /api/v1/leaves). */
const LEAVES_DEFAULT_FANOUTS = 200_000;

/**
 * The `maxFanouts` the dashboard asks an operation's leaf calls with: undefined (the API's
 * default) while its fan-outs at their median width hold at most LEAF_CALL_BUDGET calls, else
 * a uniform sample of about that many calls, at least 1,000 fan-outs (10 beyond the p99).
 */
export function leafFanoutCap(op: {
  requests: number;
  width: { p50: number };
}): number | undefined {
  const cap = Math.floor(LEAF_CALL_BUDGET / Math.max(1, op.width.p50));
  if (op.requests <= cap || cap >= LEAVES_DEFAULT_FANOUTS) return undefined;
  return Math.max(1000, cap);
}

/** The Overview attributes the stragglers of this many distinct leaves ("Top straggler causes"). */
export const OVERVIEW_CAUSE_LEAVES = 3;

/** The attribution dimensions the Overview and the Stragglers page ask for. */
export const STRAGGLER_DIMENSIONS = 'host,sharing_mode,background';

const NICE_SECONDS = [
  0.1, 0.25, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600, 21_600, 86_400,
];

/** A window length giving about `target` windows over the range (the API caps at 10,000). */
export function autoWindowSeconds(rangeMs: number, target = 90): number {
  const raw = rangeMs / 1000 / target;
  return NICE_SECONDS.find((s) => s >= raw) ?? 86_400;
}

/** The analyses stop at the stored data's end only when it trails now by less than this. */
export const SETTLED_LAG_MS = 120_000;

/**
 * The window "All data" asks the analyses for: the store's oldest to newest span (+1 ms: the
 * API's `to` is exclusive), ending instead where the stored fan-outs and episode series do
 * (`settledMs`) while the store is receiving (that end less than SETTLED_LAG_MS before now and
 * not past the newest span). As the API is asked: whole ms, `from` down and `to` up. Null for an
 * empty store.
 */
export function allDataRange(
  store: { oldestMs: number | null; newestMs: number | null; settledMs: number | null },
  nowMs: number,
): { from: number; to: number } | null {
  const { oldestMs, newestMs, settledMs: s } = store;
  if (oldestMs === null || newestMs === null) return null;
  const from = Math.floor(oldestMs);
  const to = Math.ceil(newestMs) + 1;
  const live = s !== null && s <= newestMs && nowMs - s < SETTLED_LAG_MS;
  if (!live || to <= s || from >= s) return { from, to };
  return { from, to: Math.ceil(s) };
}

/** The What-if page hedges after this call percentile when its URL names no policy. */
export const DEFAULT_HEDGE_PERCENTILE = 95;

/** The What-if page's seed when its URL names none. */
export const DEFAULT_WHATIF_SEED = 1;

/**
 * The policy the What-if page asks its whole-request answer for when its URL names none: hedging
 * after the call p95, with the simulator's defaults for its other knobs, in the order the page's
 * knob table lists them (apps/web/src/whatif/knob-table.ts; the order is part of the question a
 * live answer is kept for).
 */
export function defaultWhatIfPolicy(): {
  kind: 'hedge';
  delayPercentile: number;
  maxAttempts: number;
  drawWindowMs: number;
} {
  const spec = (name: string, min: number): number =>
    POLICY_SPECS.hedge.parameters.find((p) => p.name === name)?.default ?? min;
  return {
    kind: 'hedge',
    delayPercentile: DEFAULT_HEDGE_PERCENTILE,
    maxAttempts: spec('maxAttempts', 2),
    drawWindowMs: spec('drawWindowMs', 2),
  };
}
