/**
 * One fan-out's what-if: the recorded leaf calls replayed under a policy, the all-leaves
 * percentiles before and after with bootstrap intervals.
 */

import type { LeafCalls } from '../../types';
import { allLeavesMs } from './fanout-times';
import { bootstrapPercentiles, DEFAULT_BOOTSTRAP_SAMPLES, type Estimate } from '../estimate';
import { allOnes, effectiveSize } from '../../weighted-quantile';
import { weightedWhatIf } from '../estimate';
import { resolvePolicy } from '../policies';
import type { WhatIfPolicy } from '../policies';
import { SeededRandom } from '../../random';
import { quantileInclusive } from '../../quantile';
import { deterministicPolicy, replayPolicy, type PolicyOutcome } from '../policies';
import type { ResolvedPolicy } from '../policies';

/** Percentiles of the all-leaves finishing time, ms. */
export interface WhatIfPercentiles {
  p50: number;
  p90: number;
  p99: number;
  p999: number;
}

/** The answer of POST /api/v1/whatif (and of the browser worker). */
export interface WhatIfResult {
  /** Fan-outs replayed. */
  requests: number;
  baseline: WhatIfPercentiles;
  /** Replayed percentiles with 95% bootstrap intervals over requests. */
  whatIf: { p50: Estimate; p90: Estimate; p99: Estimate; p999: Estimate };
  /** Extra calls (or executions, for tied requests) per recorded call. */
  extraLoad: number;
  probation?: { hosts: { host: string; seconds: number }[]; capacityRemoved: number };
  completeness?: { callsAnswered: number; requestsComplete: number; lost: number };
  /** avoid-hosts: hosts avoided, share of the callee's hosts removed, load added to the others. */
  avoidHosts?: { hosts: string[]; capacityRemoved: number; loadAdded: number };
  /** False when the policy cannot act (it needs another host and the callee has one). */
  applicable: boolean;
  reason?: string;
  notes: string[];
}

/** What simulateWhatIf returns: the answer plus the replayed samples (not sent by the API). */
export interface WhatIfReplay extends WhatIfResult {
  /**
   * Replayed all-leaves times, ms, for curves: `replays` replays one after the other, each
   * indexed like the fan-outs (with `warmupUntilMs`, the reported fan-outs only, in order).
   */
  allLeavesMs: Float64Array;
  /** Replays pooled. */
  replays: number;
}

export interface SimulateOptions {
  /** Seeds the replay and the bootstrap: same seed and data, same answer. Default 1. */
  seed?: number;
  /** Bootstrap resamples B. Default 2000. */
  bootstrapSamples?: number;
  /**
   * Epoch ms: fan-outs that start earlier are warm-up. They are replayed (so probation starts
   * the range with the state the preceding window gave it, as a running system would) but left
   * out of `requests`, the percentiles, extra load, completeness and probation time.
   */
  warmupUntilMs?: number;
  /**
   * Independent replays of the policy's random draws, pooled (see defaultReplays). The reported
   * percentiles are those of the pooled replays, so the seed moves them by the replay noise of
   * R replays only.
   */
  replays?: number;
  /** Caps the default replay count (the dashboard at rest: a quick answer on a busy laptop). */
  maxReplays?: number;
}

/** Pooled replayed fan-outs aimed at by default: replay noise well under request sampling. */
const TARGET_POOLED_FANOUTS = 2_000_000;
const MAX_REPLAYS = 256;
/** Hedging redraws only its hedged calls: budget in redrawn calls (about 1 in 20 calls each). */
const HEDGE_REDRAW_BUDGET = 20_000_000;
/** Other policies replay every call each time: budget in calls replayed. */
const CALL_BUDGET = 2_000_000;

/**
 * Default replay count R: enough that R x fan-outs reaches 2 million (at least 4 replays),
 * within a budget of work (measured: a 2,000 x 20 data set replays in under a second for
 * every policy). One for a policy without draws. Where the budget binds, the seed moves the
 * answer more; the intervals cover it (see intervalNote).
 */
export function defaultReplays(
  p: ResolvedPolicy,
  fanouts: number,
  calls: number,
  spanMs = 0,
  hosts = 1,
): number {
  if (deterministicPolicy(p) || fanouts === 0) return 1;
  const want = Math.max(4, Math.ceil(TARGET_POOLED_FANOUTS / fanouts));
  // Probation steps through every interval of the range on every host, once per replay
  // (O(intervals x hosts x 512), probation.ts): that, not the calls, is its cost.
  const work =
    p.kind === 'probation'
      ? calls + ((spanMs / 1000 + p.windowSeconds) / p.intervalSeconds) * Math.max(1, hosts) * 512
      : calls;
  const afford =
    p.kind === 'hedge'
      ? Math.floor(HEDGE_REDRAW_BUDGET / Math.max(1, calls / 20))
      : Math.floor(CALL_BUDGET / Math.max(1, work));
  return Math.max(1, Math.min(MAX_REPLAYS, want, afford));
}

/** Milliseconds from the first fan-out's start to the last one's. O(fan-outs). */
function fanoutSpanMs(calls: LeafCalls): number {
  let lo = Infinity;
  let hi = -Infinity;
  for (const t of calls.fanoutStartMs) {
    if (t < lo) lo = t;
    if (t > hi) hi = t;
  }
  return hi > lo ? hi - lo : 0;
}

/**
 * Replays recorded fan-outs under a policy and reports the all-leaves finishing time
 * distribution before and after, with bootstrap intervals and the policy's costs.
 * Pure and deterministic. Throws WhatIfPolicyError naming the field for an invalid policy.
 * Complexity: O(calls) for the replay (probation adds O(intervals x hosts x 384)), plus
 * O(fan-outs log fan-outs + B) for the percentiles. No fan-outs: percentiles are NaN.
 */
export function simulateWhatIf(
  calls: LeafCalls,
  policy: WhatIfPolicy,
  opts: SimulateOptions = {},
): WhatIfReplay {
  const resolved = resolvePolicy(policy);
  const rng = new SeededRandom(opts.seed ?? 1);
  const bootRng = new SeededRandom(rng.uint32());
  const samples = opts.bootstrapSamples ?? DEFAULT_BOOTSTRAP_SAMPLES;
  const reported = reportedFanouts(calls, opts.warmupUntilMs);
  const fanouts = calls.fanoutOffsets.length - 1;
  const replays = deterministicPolicy(resolved)
    ? 1
    : opts.replays !== undefined
      ? Math.max(1, Math.floor(opts.replays))
      : Math.min(
          defaultReplays(
            resolved,
            fanouts,
            calls.durationMs.length,
            fanoutSpanMs(calls),
            calls.hosts.length,
          ),
          Math.max(1, Math.floor(opts.maxReplays ?? Number.POSITIVE_INFINITY)),
        );
  const outcome = replayPolicy(calls, resolved, rng, reported, replays);
  const replayed = pick(outcome.allLeavesMs, reported);
  const base = pick(allLeavesMs(calls), reported);
  const requests = base.length;
  const weights = reportedWeights(calls, reported);
  const notes = [...outcome.notes];
  notes.push(
    requests === 0
      ? 'no fan-outs in the range: nothing to replay'
      : intervalNote(samples, requests, replays),
  );
  if (weights)
    notes.push(
      `weighted by sampling: each fan-out counts its trace's adjusted count in the percentiles; intervals resample the effective ${Math.round(effectiveSize(weights))} of the ${requests} requests (Kish); replacement draws come from the stored calls`,
    );
  const result: WhatIfReplay = {
    requests,
    ...percentiles(base, replayed, weights, bootRng, samples),
    extraLoad: outcome.extraLoad,
    notes,
    allLeavesMs: replayed,
    replays,
    applicable: true,
  };
  if (outcome.probation) result.probation = outcome.probation;
  if (outcome.completeness) result.completeness = outcome.completeness;
  if (outcome.avoid) result.avoidHosts = outcome.avoid;
  const why = notApplicable(resolved, calls);
  if (why !== undefined) {
    result.applicable = false;
    result.reason = why;
  }
  return result;
}

export type { PolicyOutcome };

/**
 * Baseline and what-if percentiles over the reported fan-outs. Unweighted (`weights`
 * undefined): type 7 and bootstrapPercentiles, as always. Weighted by the fan-outs' sampling
 * adjusted counts (docs/analysis.md "Sampling"): weighted type-7 quantiles of the baseline and
 * of the pooled replays (entry k weighs fan-out k mod n's count), and the weighted bootstrap
 * resampling Kish's effective number of requests. Only the outputs are weighted: the replay
 * itself replays each stored fan-out once.
 */
function percentiles(
  base: Float64Array,
  replayed: Float64Array,
  weights: Float64Array | undefined,
  rng: SeededRandom,
  samples: number,
): Pick<WhatIfResult, 'baseline' | 'whatIf'> {
  const requests = base.length;
  if (weights === undefined) {
    const sortedBase = base.sort();
    return {
      baseline: {
        p50: quantileInclusive(sortedBase, 0.5),
        p90: quantileInclusive(sortedBase, 0.9),
        p99: quantileInclusive(sortedBase, 0.99),
        p999: quantileInclusive(sortedBase, 0.999),
      },
      whatIf: bootstrapPercentiles(replayed, rng, samples, requests),
    };
  }
  return weightedWhatIf(base, replayed, weights, rng, samples);
}

/** The reported fan-outs' weights, or undefined when there are none or all are 1. */
function reportedWeights(
  calls: LeafCalls,
  reported: Uint8Array | undefined,
): Float64Array | undefined {
  if (allOnes(calls.weights) || calls.weights === undefined) return undefined;
  return pick(calls.weights, reported);
}

/** 1 for fan-outs starting at or after `fromMs`; undefined (all count) without a warm-up. */
function reportedFanouts(calls: LeafCalls, fromMs: number | undefined): Uint8Array | undefined {
  if (fromMs === undefined) return undefined;
  return Uint8Array.from(calls.fanoutStartMs, (t) => (t >= fromMs ? 1 : 0));
}

/**
 * The entries of `values` whose fan-out is reported (a copy; all of them when undefined);
 * `values` may hold several replays one after the other (entry k is fan-out k mod fan-outs).
 */
function pick(values: Float64Array, reported: Uint8Array | undefined): Float64Array {
  if (!reported) return values;
  const n = reported.length;
  return values.filter((_, k) => reported[k % n] === 1);
}

/** Policies that send a call to another host of the callee. */
const NEEDS_ANOTHER_HOST = new Set(['hedge', 'tied', 'probation', 'avoid-hosts']);

/**
 * Why the policy cannot act on these calls, or undefined: a policy that needs another host
 * when every call went to one host. O(calls).
 */
export function notApplicable(p: ResolvedPolicy, calls: LeafCalls): string | undefined {
  if (!NEEDS_ANOTHER_HOST.has(p.kind) || calls.host.length === 0) return undefined;
  const first = calls.host[0];
  for (let i = 1; i < calls.host.length; i++) if (calls.host[i] !== first) return undefined;
  const name = calls.hosts[first ?? 0] ?? '?';
  return `${p.kind} needs another host of the callee, and every call in the range went to one instance (${name})`;
}

function intervalNote(samples: number, requests: number, replays: number): string {
  if (replays === 1)
    return `intervals: 95% percentile bootstrap, B = ${samples} resamples of the ${requests} requests (the policy draws nothing: they cover request sampling)`;
  return `percentiles of ${replays} pooled replays of the ${requests} requests (the seed moves them by the noise of ${replays} replays); intervals: 95% percentile bootstrap, B = ${samples} resamples of ${requests} requests each with one of its replays, so they cover both request sampling and one replay's draws`;
}
