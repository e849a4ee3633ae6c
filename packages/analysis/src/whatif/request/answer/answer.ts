/**
 * The whole-request answer's shared half: the replays' outputs turned into baseline and what-if
 * percentiles with intervals, per request and per fan-out.
 */

import type { LeafCalls } from '../../../types';
import { SeededRandom } from '../../../random';
import { quantileInclusive } from '../../../quantile';
import {
  bootstrapPercentiles,
  DEFAULT_BOOTSTRAP_SAMPLES,
  PERCENTILE_QS,
  selectedQuantiles,
  type Estimate,
} from '../../estimate';
import type { ResolvedPolicy, WhatIfPolicy } from '../../policies';
import { resolvePolicy } from '../../policies';
import { replayPolicy, type PolicyOutcome } from '../../policies';
import type { PolicyPrep } from '../../policies';
import {
  defaultReplays,
  notApplicable,
  type WhatIfPercentiles,
  type WhatIfResult,
} from '../../fanout';
import type { RequestTrees } from '../trees';
import type { LoopHook, LoopReport } from '../loop';
import { weightedWhatIf } from '../../estimate';
import { recordedRequestMs } from '../replay';
import { mergeRanges } from '../../estimate';

/** Root request distribution before and after, as the API reports it. */
export interface RequestWhatIf {
  baseline: WhatIfPercentiles;
  whatIf: { p50: Estimate; p90: Estimate; p99: Estimate; p999: Estimate };
  /**
   * Mean change of the request time over mean change of the edge's time per request: the share
   * of the edge's change that reaches the request (1: all of it; near 0: something else, such
   * as a lock held elsewhere, decides the request). Absent when the edge did not change.
   */
  shareOfEdgeChange?: number;
  /**
   * How requests were re-timed: 'open' alone, 'closed-loop' as recorded clients sending back to
   * back through a serialized operation's queue (loop-model.ts), with what was detected.
   */
  model: 'open' | 'closed-loop';
  closedLoop?: LoopReport;
  /** Why the closed-loop model was not used, when a closed loop was considered. */
  modelReason?: string;
}

export interface RequestWhatIfResult extends WhatIfResult {
  request: RequestWhatIf;
}

/**
 * What the answer needs of a compiled replay (one plan, or the parts of a request range merged:
 * request/answer/parts.ts): the involved requests, the target groups, the policy's LeafCalls.
 */
export interface RequestHead {
  /** Requests with a call on the edge, in order. */
  involved: Uint32Array;
  groups: number;
  groupRecordedMs: Float64Array;
  /** Whether some group holds more than one call (the pool policy needs one). */
  repeated: boolean;
  /** The target calls as LeafCalls (a pool plan's hold the durations only). */
  blocks: LeafCalls;
}

/** The recorded side (it depends on the recording only). */
export interface Baseline {
  /** Mean recorded time of the involved requests and of the groups, and their percentiles. */
  reqMean: number;
  fanMean: number;
  reqQ: WhatIfPercentiles;
  fanQ: WhatIfPercentiles;
}

/** One answer's policy and random streams, drawn in the order the first implementation drew them. */
export interface RequestRun {
  p: ResolvedPolicy;
  isPool: boolean;
  rng: SeededRandom;
  bootRng: SeededRandom;
  samples: number;
}

export function startRequestRun(
  policy: WhatIfPolicy,
  opts: { seed?: number; bootstrapSamples?: number },
): RequestRun {
  const p = resolvePolicy(policy);
  const rng = new SeededRandom(opts.seed ?? 1);
  const bootRng = new SeededRandom(rng.uint32());
  return {
    p,
    isPool: p.kind === 'pool',
    rng,
    bootRng,
    samples: opts.bootstrapSamples ?? DEFAULT_BOOTSTRAP_SAMPLES,
  };
}

export function mean(a: Float64Array): number {
  let sum = 0;
  // Indexed: for-of over a typed array was ~5x slower (33 ms for a 1M-request answer's 6M values).
  for (let i = 0; i < a.length; i++) sum += a[i]!;
  return sum / Math.max(1, a.length);
}

/** percentiles of unsorted values (selectedQuantiles: no sort). */
function percentilesOf(values: Float64Array): WhatIfPercentiles {
  const [p50, p90, p99, p999] = selectedQuantiles(values, PERCENTILE_QS);
  return { p50: p50!, p90: p90!, p99: p99!, p999: p999! };
}

/**
 * The positions of m sorted values that percentiles() reads (quantileInclusive's two order
 * statistics per percentile), merged: for a caller that orders only those (sortedAtRanges, on
 * other threads) instead of sorting everything. Empty for no values.
 */
export function percentileReads(m: number): [number, number][] {
  if (m === 0) return [];
  const at = [0.5, 0.9, 0.99, 0.999].map((q): [number, number] => {
    const k = Math.min(m, Math.max(1, Math.floor(q * (m - 1) + 1)));
    return [k - 1, Math.min(m - 1, k)];
  });
  return mergeRanges(at);
}

export function percentiles(sorted: Float64Array): WhatIfPercentiles {
  return {
    p50: quantileInclusive(sorted, 0.5),
    p90: quantileInclusive(sorted, 0.9),
    p99: quantileInclusive(sorted, 0.99),
    p999: quantileInclusive(sorted, 0.999),
  };
}

/**
 * The four arrays an answer sorts, sorted elsewhere (sortedCopy, on other threads): the involved
 * requests' recorded times (recordedRequestMs), the groups' (groupRecordedMs), and every
 * replay's new ones (reqAll, fanAll). Without `req` or `fan` the bootstrap orders only the
 * ranks it reads of that one (sortedWhereRead): at 1M requests ~20-50 ms on the calling
 * thread against ~100 ms of a thread per full sort of its 2 million values, the same values.
 */
export interface SortedOutputs {
  reqBase: Float64Array;
  fanBase: Float64Array;
  req?: Float64Array;
  fan?: Float64Array;
}

export function baselineOf(
  trees: RequestTrees,
  head: RequestHead,
  sorted?: SortedOutputs,
  /** recordedRequestMs(trees, head.involved), taken elsewhere (threads): the same values. */
  recorded?: Float64Array,
): Baseline {
  const req = recorded ?? recordedRequestMs(trees, head.involved);
  return {
    reqMean: mean(req),
    fanMean: mean(head.groupRecordedMs),
    reqQ: sorted ? percentiles(sorted.reqBase) : percentilesOf(req),
    fanQ: sorted ? percentiles(sorted.fanBase) : percentilesOf(head.groupRecordedMs),
  };
}

/** Requests from which 2 pooled replays are enough (2 million pooled requests, see below). */
const LARGE_REQUESTS = 1_000_000;
/** Pooled whole requests aimed at below LARGE_REQUESTS (at least 4 replays). */
const TARGET_POOLED_REQUESTS = 500_000;

/**
 * defaultReplays, but fewer: ceil(500,000 / requests) replays (at least 4), and 2 from 1 million
 * requests on. defaultReplays aims at 2 million pooled fan-outs, which for a whole-request
 * answer over the 24,505 requests of the `microservices` preset meant 82 replays and 2.5-4.6 s of
 * a full answer's 3.4 s on the What-if page (bench:pages); measured there, hedge p95 on route,
 * seeds 1-6: the request p50, p99 and p99.9 the same to 0.001 ms with 82, 21 and 8 replays, the
 * edge p99 within 0.06% and its p99.9 within 0.6% (0.8% with 82), at 0.7-1.1 s with 21. At 1M
 * requests (seeds 1-10, hedge p95 on pricing): fan-out p99 spread 0.25% with 2 replays, 0.18% with
 * 4; the request p99 did not move; each replay of a million requests costs ~0.15 s.
 */
export function requestReplays(
  run: RequestRun,
  requests: number,
  calls: number,
  asked?: number,
): number {
  if (asked !== undefined) return Math.max(1, Math.floor(asked));
  const r = defaultReplays(run.p, requests, calls);
  const aim =
    requests >= LARGE_REQUESTS
      ? 2
      : Math.max(4, Math.ceil(TARGET_POOLED_REQUESTS / Math.max(1, requests)));
  return Math.min(r, aim);
}

/**
 * The policy's times for the target calls' blocks, `replays` replays one after another (the
 * pool policy draws nothing: the recorded durations, scheduled by the plan).
 */
export function requestOutcome(
  run: RequestRun,
  blocks: LeafCalls,
  replays: number,
  /** Work done beforehand (policy-prep.ts: the same values). */
  prep?: PolicyPrep,
): PolicyOutcome {
  const p = run.p;
  if (p.kind !== 'pool') return replayPolicy(blocks, p, run.rng, undefined, replays, prep);
  return {
    allLeavesMs: blocks.durationMs,
    extraLoad: 0,
    notes: [
      `the edge's calls of each request scheduled in recorded order on ${Number.isFinite(p.workers) ? `${p.workers} workers` : 'unbounded workers (all at once)'}, each keeping its recorded latency (no queueing added at the callee by the extra concurrency)`,
    ],
  };
}

/**
 * The answer from every replay's re-timed requests (reqAll) and target groups (fanAll), one
 * replay after another: percentiles with bootstrap intervals, the share of the edge's change.
 */
export function requestAnswer(
  trees: RequestTrees,
  run: RequestRun,
  head: RequestHead,
  base: Baseline,
  outcome: PolicyOutcome,
  replays: number,
  all: { reqAll: Float64Array; fanAll: Float64Array },
  loop: LoopHook,
  w: { groups: Float64Array; requests: Float64Array } | undefined,
  sorted?: SortedOutputs,
): RequestWhatIfResult {
  const { p, isPool, bootRng, samples } = run;
  const { reqAll, fanAll } = all;
  const involved = head.involved;
  const dReq = mean(reqAll) - base.reqMean;
  const dFan = ((mean(fanAll) - base.fanMean) * head.groups) / Math.max(1, involved.length);
  const why =
    notApplicable(p, head.blocks) ?? (isPool ? poolNotApplicable(head, trees) : undefined);
  const fan = w
    ? weightedWhatIf(head.groupRecordedMs, fanAll, w.groups, bootRng, samples)
    : {
        baseline: { ...base.fanQ },
        whatIf: bootstrapPercentiles(fanAll, bootRng, samples, head.groups, sorted?.fan),
      };
  const req = w
    ? weightedWhatIf(recordedRequestMs(trees, involved), reqAll, w.requests, bootRng, samples)
    : {
        baseline: { ...base.reqQ },
        whatIf: bootstrapPercentiles(reqAll, bootRng, samples, involved.length, sorted?.req),
      };
  const result: RequestWhatIfResult = {
    requests: head.groups,
    ...fan,
    extraLoad: outcome.extraLoad,
    applicable: why === undefined,
    ...(why !== undefined ? { reason: why } : {}),
    notes: [
      ...outcome.notes,
      `whole requests: ${involved.length} requests with a call on the edge, re-timed through their call trees (parallel: latest child; sequential: recorded gaps; pool: list scheduling on the recorded concurrency); ${replays} pooled replays; intervals resample requests, each with one of its replays`,
      ...loop.notes,
    ],
    request: {
      ...req,
      ...(Math.abs(dFan) > 1e-9 ? { shareOfEdgeChange: dReq / dFan } : {}),
      ...loop.fields(),
    },
  };
  if (outcome.probation) result.probation = outcome.probation;
  if (outcome.completeness) result.completeness = outcome.completeness;
  if (outcome.avoid) result.avoidHosts = outcome.avoid;
  return result;
}

function poolNotApplicable(head: RequestHead, t: RequestTrees): string | undefined {
  if (head.repeated) return undefined;
  return t.edges.length > 0
    ? 'pool needs repeated calls: every call of this edge is alone in its request'
    : 'no calls';
}
