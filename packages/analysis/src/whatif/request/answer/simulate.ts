/**
 * The whole-request what-if on one thread: plan the target edge, replay the policy, re-time
 * every request, answer.
 */

import type { WhatIfPolicy } from '../../policies';
import { resolvePolicy } from '../../policies';
import type { PolicyOutcome } from '../../policies';
import type { RequestTrees } from '../trees';
import type { ArenaMemory } from '../arena';
import { buildRequestPlan, planState, runPlan, type RequestPlan } from '../plan';
import { detectLoop, loopModelFor } from '../loop';
import type { LoopDetection } from '../loop';
import { loopAdjust, weightsFor } from '../replay';
import {
  baselineOf,
  requestAnswer,
  requestOutcome,
  requestReplays,
  startRequestRun,
  type Baseline,
  type RequestRun,
  type RequestWhatIfResult,
} from './answer';
import { mergePoolParts, poolParts } from './parts';

export type { RequestWhatIf, RequestWhatIfResult } from './answer';

/** The edge to replay: its callee, and optionally one caller. */
export interface EdgeTarget {
  leafService: string;
  leafOperation: string;
  parentService?: string;
  parentOperation?: string;
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

/** The compiled whole-request replay of one edge in one set of trees (request/plan/plan.ts). */
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

export function planKey(target: EdgeTarget, isPool: boolean): string {
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
 * policy, or any other: they share one plan). O(nodes). `range`: only requests [from, to)
 * (one part of a split answer, request/answer/parts.ts); the plan then numbers its blocks, groups and
 * involved requests from 0, as the whole plan numbers them from the part's first.
 */
export function prepareRequestWhatIf(
  trees: RequestTrees,
  target: EdgeTarget,
  policy: WhatIfPolicy,
  range?: { from: number; to: number },
  /**
   * Buffers for the plan (ArenaMemory), reused from an earlier plan made with them: that plan's
   * columns are then overwritten. A thread planning the same parts answer after answer keeps one
   * per part, so a plan writes memory already mapped (fresh memory was ~15% of a plan's time).
   */
  memory?: ArenaMemory,
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
      ...(range ?? {}),
      ...(memory ? { memory } : {}),
    }),
  };
}

export function targetMask(t: RequestTrees, e: EdgeTarget): Uint8Array {
  return Uint8Array.from(t.edges, (x) =>
    x.leafService === e.leafService &&
    x.leafOperation === e.leafOperation &&
    (e.parentService === undefined || x.parentService === e.parentService) &&
    (e.parentOperation === undefined || x.parentOperation === e.parentOperation)
      ? 1
      : 0,
  );
}

/** Pooled replays in an outcome of B blocks (at least 1, as when there is nothing to replay). */
export function replaysIn(outcome: PolicyOutcome, blocks: number): number {
  return outcome.allLeavesMs.length / Math.max(1, blocks) || 1;
}

/**
 * Replays the target edge's calls under a policy inside whole recorded requests (see
 * request/replay/replay.ts) and reports the edge (fan-out: each parent's calls on the edge, first
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
  const run = startRequestRun(policy, opts);
  const reuse = opts.prepared?.trees === trees && opts.prepared.key === planKey(target, run.isPool);
  if (run.p.kind === 'pool' && !reuse && opts.traceWeights === undefined)
    return poolByParts(trees, target, run, run.p.workers);
  const prepared =
    reuse && opts.prepared ? opts.prepared : prepareRequestWhatIf(trees, target, policy);
  const pr = prepared.plan;
  prepared.loop ??= detectLoop(trees, prepared.mask);
  const loop = loopModelFor(trees, prepared.loop);
  const B = pr.blocks.fanoutOffsets.length - 1;
  const R = requestReplays(
    run,
    Math.max(1, trees.requestStartMs.length),
    pr.blocks.durationMs.length,
    opts.replays,
  );
  const outcome = requestOutcome(run, pr.blocks, R);
  const replays = replaysIn(outcome, B);
  const all = replayAll(
    pr,
    outcome.allLeavesMs,
    replays,
    run.p.kind === 'pool' ? run.p.workers : Infinity,
    loop.apply && loopAdjust(trees, pr.involved, loop.apply),
  );
  prepared.baseline ??= baselineOf(trees, pr);
  const w =
    opts.traceWeights && weightsFor(trees, prepared.mask, run.isPool, pr, opts.traceWeights);
  return requestAnswer(trees, run, pr, prepared.baseline, outcome, replays, all, loop, w);
}

/**
 * A cold pool answer part by part (request/answer/parts.ts's poolPart): the parts' plans share one
 * part's memory, written again and again, instead of a million requests' plan written once
 * (its fresh pages and collections were a third of the time). Bit for bit the one-plan answer.
 */
function poolByParts(
  trees: RequestTrees,
  target: EdgeTarget,
  run: RequestRun,
  workers: number,
): RequestWhatIfResult {
  const mask = targetMask(trees, target);
  const loop = loopModelFor(trees, detectLoop(trees, mask));
  const { head, reqAll, fanAll } = mergePoolParts(poolParts(trees, mask, workers));
  if (loop.apply) loopAdjust(trees, head.involved, loop.apply)(reqAll);
  const outcome = requestOutcome(run, head.blocks, 1);
  const base = baselineOf(trees, head);
  return requestAnswer(trees, run, head, base, outcome, 1, { reqAll, fanAll }, loop, undefined);
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
