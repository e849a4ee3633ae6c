import type { LeafCalls } from '../types';
import { allLeavesMs } from './fanout-times';
import { bootstrapPercentiles, DEFAULT_BOOTSTRAP_SAMPLES, type Estimate } from './bootstrap';
import { resolvePolicy } from './resolve-policy';
import type { WhatIfPolicy } from './policy';
import { SeededRandom } from '../random';
import { quantileInclusive } from '../quantile';
import { replayPolicy, type PolicyOutcome } from './replay-policy';

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
  notes: string[];
}

/** What simulateWhatIf returns: the answer plus the replayed samples (not sent by the API). */
export interface WhatIfReplay extends WhatIfResult {
  /**
   * Replayed all-leaves time of every fan-out, ms, indexed like the fan-outs (for curves); with
   * `warmupUntilMs`, of the reported fan-outs only, in the same order.
   */
  allLeavesMs: Float64Array;
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
  const outcome = replayPolicy(calls, resolved, rng, reported);
  const sortedBase = pick(allLeavesMs(calls), reported).sort();
  const replayed = pick(outcome.allLeavesMs, reported);
  const requests = sortedBase.length;
  const notes = [...outcome.notes];
  notes.push(
    requests === 0
      ? 'no fan-outs in the range: nothing to replay'
      : `intervals: 95% percentile bootstrap, B = ${samples} resamples of the ${requests} requests (they cover request sampling, not the replay's own draws)`,
  );
  const result: WhatIfReplay = {
    requests,
    baseline: {
      p50: quantileInclusive(sortedBase, 0.5),
      p90: quantileInclusive(sortedBase, 0.9),
      p99: quantileInclusive(sortedBase, 0.99),
      p999: quantileInclusive(sortedBase, 0.999),
    },
    whatIf: bootstrapPercentiles(replayed, bootRng, samples),
    extraLoad: outcome.extraLoad,
    notes,
    allLeavesMs: replayed,
  };
  if (outcome.probation) result.probation = outcome.probation;
  if (outcome.completeness) result.completeness = outcome.completeness;
  return result;
}

export type { PolicyOutcome };

/** 1 for fan-outs starting at or after `fromMs`; undefined (all count) without a warm-up. */
function reportedFanouts(calls: LeafCalls, fromMs: number | undefined): Uint8Array | undefined {
  if (fromMs === undefined) return undefined;
  return Uint8Array.from(calls.fanoutStartMs, (t) => (t >= fromMs ? 1 : 0));
}

/** The entries of `values` whose fan-out is reported (a copy; all of them when undefined). */
function pick(values: Float64Array, reported: Uint8Array | undefined): Float64Array {
  if (!reported) return values;
  return values.filter((_, f) => reported[f] === 1);
}
