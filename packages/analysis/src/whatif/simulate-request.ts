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
import { prepareRequests, type PreparedRequests } from './request-replay';
import { recomputeRequests, RecomputeScratch } from './request-recompute';
import { sortedCopy } from './radix-sort';
import { loopModelFor, type LoopReport } from './loop-report';
import { weightedWhatIf } from './weighted-outputs';
import { allOnes } from '../weighted-quantile';

/**
 * Per target group and per involved request, the request's trace weight (1 when unknown), or
 * undefined when every weight is 1. O(nodes).
 */
function weightsOf(
  t: RequestTrees,
  groupOf: Int32Array,
  groups: number,
  involved: Uint32Array,
  byTrace: Record<string, number>,
): { groups: Float64Array; requests: Float64Array } | undefined {
  const requestW = Float64Array.from(t.traceIds, (id) => byTrace[id] ?? 1);
  if (allOnes(requestW)) return undefined;
  const groupW = new Float64Array(groups).fill(1);
  for (let q = 0; q + 1 < t.nodeOffsets.length; q++)
    for (let i = t.nodeOffsets[q]!; i < t.nodeOffsets[q + 1]!; i++)
      if (groupOf[i]! >= 0) groupW[groupOf[i]!] = requestW[q]!;
  return { groups: groupW, requests: Float64Array.from(involved, (q) => requestW[q]!) };
}

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
   * Sampled data (docs/analysis.md "Sampling"): trace id -> its root span's adjusted count. The
   * fan-out and request percentiles are then weighted (weighted-outputs.ts); the replay is not.
   */
  traceWeights?: Record<string, number>;
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
  const mask = targetMask(trees, target);
  const pr = prepareRequests(trees, { target: mask, perCall: isPool });
  const loop = loopModelFor(trees, mask);
  const B = pr.blocks.fanoutOffsets.length - 1;
  const R =
    opts.replays !== undefined
      ? Math.max(1, Math.floor(opts.replays))
      : defaultReplays(p, Math.max(1, trees.requestStartMs.length), pr.blocks.durationMs.length);
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
  const involved = requestsWithEdge(trees, pr.groupOf);
  const { reqAll, fanAll } = replayAll(
    pr,
    outcome.allLeavesMs,
    replays,
    involved,
    isPool ? p.workers : undefined,
    loop.apply,
  );
  const baseReq = new Float64Array(involved.length);
  for (let k = 0; k < involved.length; k++)
    baseReq[k] = trees.durationMs[trees.nodeOffsets[involved[k]!]!]!;
  const baseFan = pr.groupRecordedMs;
  const mean = (a: Float64Array): number => {
    let sum = 0;
    for (const x of a) sum += x;
    return sum / Math.max(1, a.length);
  };
  const dReq = mean(reqAll) - mean(baseReq);
  const dFan = ((mean(fanAll) - mean(baseFan)) * pr.groups) / Math.max(1, involved.length);
  const why = notApplicable(p, pr.blocks) ?? (isPool ? poolNotApplicable(pr, trees) : undefined);
  const w =
    opts.traceWeights && weightsOf(trees, pr.groupOf, pr.groups, involved, opts.traceWeights);
  const fan = w
    ? weightedWhatIf(baseFan, fanAll, w.groups, bootRng, samples)
    : {
        baseline: percentiles(sortedCopy(baseFan)),
        whatIf: bootstrapPercentiles(fanAll, bootRng, samples, pr.groups),
      };
  const req = w
    ? weightedWhatIf(baseReq, reqAll, w.requests, bootRng, samples)
    : {
        baseline: percentiles(sortedCopy(baseReq)),
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

/** Every replay's re-timed requests (those in `involved`) and target groups, one after another. */
function replayAll(
  pr: PreparedRequests,
  blockMs: Float64Array,
  replays: number,
  involved: Uint32Array,
  workers: number | undefined,
  /** Re-times every request of one replay in place (the closed-loop model), when set. */
  adjust?: (requestMs: Float64Array) => void,
): { reqAll: Float64Array; fanAll: Float64Array } {
  const trees = pr.trees;
  const scratch = new RecomputeScratch(
    trees.parent.length,
    Math.max(1, pr.maxChildren),
    pr.nodeTimes,
  );
  const reqOut = new Float64Array(trees.requestStartMs.length);
  const fanOut = new Float64Array(pr.groups);
  const reqAll = new Float64Array(involved.length * replays);
  const fanAll = new Float64Array(pr.groups * replays);
  for (let r = 0; r < replays; r++) {
    recomputeRequests(pr, blockMs, r, workers, scratch, { requestMs: reqOut, fanoutMs: fanOut });
    adjust?.(reqOut);
    for (let k = 0; k < involved.length; k++)
      reqAll[r * involved.length + k] = reqOut[involved[k]!]!;
    fanAll.set(fanOut, r * pr.groups);
  }
  return { reqAll, fanAll };
}

function requestsWithEdge(t: RequestTrees, groupOf: Int32Array): Uint32Array {
  const out = new Uint32Array(t.nodeOffsets.length - 1);
  let n = 0;
  for (let q = 0; q + 1 < t.nodeOffsets.length; q++) {
    for (let i = t.nodeOffsets[q]!; i < t.nodeOffsets[q + 1]!; i++) {
      if (groupOf[i]! >= 0) {
        out[n++] = q;
        break;
      }
    }
  }
  return out.subarray(0, n);
}

function poolNotApplicable(pr: PreparedRequests, t: RequestTrees): string | undefined {
  const count = new Uint32Array(pr.groups);
  for (let i = 0; i < pr.groupOf.length; i++) {
    const g = pr.groupOf[i]!;
    if (g >= 0 && ++count[g]! > 1) return undefined;
  }
  return t.edges.length > 0
    ? 'pool needs repeated calls: every call of this edge is alone in its request'
    : 'no calls';
}
