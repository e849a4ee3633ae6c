/* eslint-disable @typescript-eslint/no-non-null-assertion -- typed-array loops, in bounds by construction. */
import { SeededRandom } from '../random';
import { quantileInclusive } from '../quantile';
import { bootstrapPercentiles, DEFAULT_BOOTSTRAP_SAMPLES, type Estimate } from './bootstrap';
import type { WhatIfPolicy } from './policy';
import { resolvePolicy } from './resolve-policy';
import { replayPolicy } from './replay-policy';
import {
  defaultReplays,
  notApplicable,
  type WhatIfPercentiles,
  type WhatIfResult,
} from './simulate';
import type { RequestTrees } from './request-trees';
import { buildRequestPlan, planState, runPlan, type RequestPlan } from './request-plan';
import { detectLoop, loopModelFor, type LoopReport } from './loop-report';
import type { LoopDetection } from './loop-model';
import { weightedWhatIf } from './weighted-outputs';
import { loopAdjust, recordedRequestMs, weightsFor } from './request-adjust';
import { sortedCopy } from './radix-sort';

/** The edge to replay: its callee, and optionally one caller. */
export interface EdgeTarget {
  leafService: string;
  leafOperation: string;
  parentService?: string;
  parentOperation?: string;
}

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

export interface RequestSimulateOptions {
  seed?: number;
  bootstrapSamples?: number;
  replays?: number;
  /**
   * The compiled replay of these trees for this edge (prepareRequestWhatIf), reused across
   * answers that change only the policy's parameters (a slider): building it is most of a cold
   * answer's time. Ignored unless it was prepared from the same trees, edge and policy family.
   */
  prepared?: PreparedRequestWhatIf;
  /**
   * Sampled data (docs/analysis.md "Sampling"): trace id -> its root span's adjusted count. The
   * fan-out and request percentiles are then weighted (weighted-outputs.ts); the replay is not.
   */
  traceWeights?: Record<string, number>;
}

/** The compiled whole-request replay of one edge in one set of trees (request-plan.ts). */
export interface PreparedRequestWhatIf {
  trees: RequestTrees;
  key: string;
  /** Per edge of the trees, 1 when it is the replayed edge. */
  mask: Uint8Array;
  plan: RequestPlan;
  /** The closed-loop check (it depends on the recording only), filled by the first answer. */
  loop?: LoopDetection;
  /** The recorded side (it depends on the recording only), filled by the first answer. */
  baseline?: Baseline;
}

interface Baseline {
  /** Mean recorded time of the involved requests and of the groups, and their percentiles. */
  reqMean: number;
  fanMean: number;
  reqQ: WhatIfPercentiles;
  fanQ: WhatIfPercentiles;
}

function mean(a: Float64Array): number {
  let sum = 0;
  for (const x of a) sum += x;
  return sum / Math.max(1, a.length);
}

function baselineOf(prepared: PreparedRequestWhatIf): Baseline {
  if (prepared.baseline) return prepared.baseline;
  const { trees, plan } = prepared;
  const req = new Float64Array(plan.involved.length);
  for (let k = 0; k < req.length; k++)
    req[k] = trees.durationMs[trees.nodeOffsets[plan.involved[k]!]!]!;
  prepared.baseline = {
    reqMean: mean(req),
    fanMean: mean(plan.groupRecordedMs),
    reqQ: percentiles(sortedCopy(req)),
    fanQ: percentiles(sortedCopy(plan.groupRecordedMs)),
  };
  return prepared.baseline;
}

function planKey(target: EdgeTarget, isPool: boolean): string {
  return JSON.stringify([
    target.leafService,
    target.leafOperation,
    target.parentService ?? null,
    target.parentOperation ?? null,
    isPool,
  ]);
}

/**
 * Compiles the replay of `target` in `trees` for policies of `policy`'s family (the pool
 * policy, or any other: they share one plan). O(nodes).
 */
export function prepareRequestWhatIf(
  trees: RequestTrees,
  target: EdgeTarget,
  policy: WhatIfPolicy,
): PreparedRequestWhatIf {
  const isPool = resolvePolicy(policy).kind === 'pool';
  const mask = targetMask(trees, target);
  return {
    trees,
    key: planKey(target, isPool),
    mask,
    plan: buildRequestPlan(trees, {
      target: mask,
      perCall: isPool,
      ...(isPool ? { workers: Infinity, durationsOnly: true } : {}),
    }),
  };
}

function percentiles(sorted: Float64Array): WhatIfPercentiles {
  return {
    p50: quantileInclusive(sorted, 0.5),
    p90: quantileInclusive(sorted, 0.9),
    p99: quantileInclusive(sorted, 0.99),
    p999: quantileInclusive(sorted, 0.999),
  };
}

function targetMask(t: RequestTrees, e: EdgeTarget): Uint8Array {
  return Uint8Array.from(t.edges, (x) =>
    x.leafService === e.leafService &&
    x.leafOperation === e.leafOperation &&
    (e.parentService === undefined || x.parentService === e.parentService) &&
    (e.parentOperation === undefined || x.parentOperation === e.parentOperation)
      ? 1
      : 0,
  );
}

/**
 * Replays the target edge's calls under a policy inside whole recorded requests (see
 * request-replay.ts) and reports the edge (fan-out: each parent's calls on the edge, first
 * start to last end) and the root request distributions, with pooled replays and bootstrap
 * intervals as simulateWhatIf. Requests without a call on the edge are left out.
 * O(R x nodes) plus the policy's replay.
 */
export function simulateRequestWhatIf(
  trees: RequestTrees,
  target: EdgeTarget,
  policy: WhatIfPolicy,
  opts: RequestSimulateOptions = {},
): RequestWhatIfResult {
  const p = resolvePolicy(policy);
  const rng = new SeededRandom(opts.seed ?? 1);
  const bootRng = new SeededRandom(rng.uint32());
  const samples = opts.bootstrapSamples ?? DEFAULT_BOOTSTRAP_SAMPLES;
  const isPool = p.kind === 'pool';
  const prepared =
    opts.prepared?.trees === trees && opts.prepared.key === planKey(target, isPool)
      ? opts.prepared
      : prepareRequestWhatIf(trees, target, policy);
  const pr = prepared.plan;
  prepared.loop ??= detectLoop(trees, prepared.mask);
  const loop = loopModelFor(trees, prepared.loop);
  const B = pr.blocks.fanoutOffsets.length - 1;
  const R =
    opts.replays !== undefined
      ? Math.max(1, Math.floor(opts.replays))
      : requestReplays(p, Math.max(1, trees.requestStartMs.length), pr.blocks.durationMs.length);
  const outcome = isPool
    ? {
        allLeavesMs: pr.blocks.durationMs,
        extraLoad: 0,
        notes: [
          `the edge's calls of each request scheduled in recorded order on ${Number.isFinite(p.workers) ? `${p.workers} workers` : 'unbounded workers (all at once)'}, each keeping its recorded latency (no queueing added at the callee by the extra concurrency)`,
        ],
      }
    : replayPolicy(pr.blocks, p, rng, undefined, R);
  const replays = outcome.allLeavesMs.length / Math.max(1, B) || 1;
  const involved = pr.involved;
  const { reqAll, fanAll } = replayAll(
    pr,
    outcome.allLeavesMs,
    replays,
    isPool ? p.workers : Infinity,
    loop.apply && loopAdjust(trees, pr.involved, loop.apply),
  );
  const base = baselineOf(prepared);
  const dReq = mean(reqAll) - base.reqMean;
  const dFan = ((mean(fanAll) - base.fanMean) * pr.groups) / Math.max(1, involved.length);
  const why = notApplicable(p, pr.blocks) ?? (isPool ? poolNotApplicable(pr, trees) : undefined);
  const w = opts.traceWeights && weightsFor(trees, prepared.mask, isPool, pr, opts.traceWeights);
  const fan = w
    ? weightedWhatIf(pr.groupRecordedMs, fanAll, w.groups, bootRng, samples)
    : {
        baseline: { ...base.fanQ },
        whatIf: bootstrapPercentiles(fanAll, bootRng, samples, pr.groups),
      };
  const req = w
    ? weightedWhatIf(recordedRequestMs(trees, involved), reqAll, w.requests, bootRng, samples)
    : {
        baseline: { ...base.reqQ },
        whatIf: bootstrapPercentiles(reqAll, bootRng, samples, involved.length),
      };
  const result: RequestWhatIfResult = {
    requests: pr.groups,
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

/** Requests from which 2 pooled replays are enough (2 million pooled requests, see below). */
const LARGE_REQUESTS = 1_000_000;

/**
 * defaultReplays, but 2 replays instead of its floor of 4 from 1 million requests on: 2 million
 * pooled requests already hold the seed's noise down (measured on the microservices preset at
 * 1M requests, hedge p95 on pricing, seeds 1-10: fan-out p99 spread 0.25% with 2 replays,
 * 0.18% with 4; the request p99 did not move), and each replay of a million requests costs
 * ~0.15 s.
 */
function requestReplays(
  p: ReturnType<typeof resolvePolicy>,
  requests: number,
  calls: number,
): number {
  const r = defaultReplays(p, requests, calls);
  return requests >= LARGE_REQUESTS ? Math.min(r, 2) : r;
}

/** Every replay's re-timed requests (those with a call on the edge) and target groups, one after another. */
function replayAll(
  pr: RequestPlan,
  blockMs: Float64Array,
  replays: number,
  workers: number,
  /** Re-times one replay's involved requests in place (the closed-loop model), when set. */
  adjust?: (involvedMs: Float64Array) => void,
): { reqAll: Float64Array; fanAll: Float64Array } {
  const n = pr.involved.length;
  const st = planState(pr, workers);
  const reqAll = new Float64Array(n * replays);
  const fanAll = new Float64Array(pr.groups * replays);
  for (let r = 0; r < replays; r++) {
    const req = reqAll.subarray(r * n, (r + 1) * n);
    runPlan(pr, blockMs, r, st, req, fanAll.subarray(r * pr.groups, (r + 1) * pr.groups));
    adjust?.(req);
  }
  return { reqAll, fanAll };
}

function poolNotApplicable(pr: RequestPlan, t: RequestTrees): string | undefined {
  if (pr.repeated) return undefined;
  return t.edges.length > 0
    ? 'pool needs repeated calls: every call of this edge is alone in its request'
    : 'no calls';
}
