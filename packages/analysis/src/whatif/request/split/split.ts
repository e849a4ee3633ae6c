/**
 * The steps of a whole-request answer split into parts, for a driver that plans and replays the
 * parts elsewhere (worker threads).
 */

import type { LeafCalls } from '../../../types';
import { bootstrapReads, PERCENTILE_QS } from '../../estimate';
import {
  policyQuantile,
  policyUsesIndex,
  withHedgeScan,
  type PolicyOutcome,
  type PolicyPrep,
  type WhatIfPolicy,
} from '../../policies';
import type { RequestTrees } from '../trees';
import { detectLoop, loopModelFor, type LoopHook } from '../loop';
import { loopAdjust, recordedRequestMs } from '../replay';
import {
  baselineOf,
  mergePoolParts,
  replaysIn,
  requestAnswer,
  requestOutcome,
  requestReplays,
  startRequestRun,
  targetMask,
  type EdgeTarget,
  type PartOffsets,
  type PoolPart,
  type RequestHead,
  type RequestRun,
  type RequestSimulateOptions,
  type RequestWhatIfResult,
  type SortedOutputs,
} from '../answer';

/**
 * The steps of a whole-request answer split into parts (request/answer/parts.ts), for a caller that
 * plans and replays the parts elsewhere (worker threads): start, then plan every part
 * (prepareRequestWhatIf with its range, partHead), merge and replay the policy once
 * (splitReplay), replay every part (replayPart) into the outputs, finish. The same steps run
 * in one thread by simulateRequestWhatIfSplit give the one-plan answer bit for bit. Trees with
 * groups of mixed structures (RequestPlan.overflow, not from real traces) are answered in one
 * plan instead.
 */
export interface SplitAnswer {
  trees: RequestTrees;
  run: RequestRun;
  loop: LoopHook;
  opts: RequestSimulateOptions;
}

export function startSplit(
  trees: RequestTrees,
  target: EdgeTarget,
  policy: WhatIfPolicy,
  opts: RequestSimulateOptions,
): SplitAnswer {
  if (opts.traceWeights !== undefined || opts.prepared !== undefined)
    throw new Error('a split answer takes neither trace weights nor a prepared plan');
  const run = startRequestRun(policy, opts);
  const loop = loopModelFor(trees, detectLoop(trees, targetMask(trees, target)));
  return { trees, run, loop, opts };
}

/** After the parts are planned: the merged head, the policy's replay, room for the outputs. */
export interface SplitReplay {
  head: RequestHead;
  at: PartOffsets;
  outcome: PolicyOutcome;
  replays: number;
  /** The policy's block times for every part (undefined for the pool policy: see replayPart). */
  blockMs: Float64Array | undefined;
  workers: number;
  reqAll: Float64Array;
  fanAll: Float64Array;
}

/**
 * Replays the policy over the merged target calls of heads merged (mergeParts), their calls written in place by the
 * parts (request/split/part-calls.ts). `prep`: the policy's work on the merged calls done elsewhere
 * (splitPrep); the hedge's output is made by `alloc` too.
 */
export function mergedSplitReplay(
  s: SplitAnswer,
  { head, at }: { head: RequestHead; at: PartOffsets },
  alloc: (n: number) => Float64Array = (n) => new Float64Array(n),
  prep: PolicyPrep = {},
  /**
   * Called with part k (and where to replay it) as soon as the policy's times of its blocks are
   * final, while the policy still replays later blocks: the hedge only (its draws run block by
   * block, in part order). Parts not handed on here are the caller's to replay afterwards.
   */
  onPart?: (k: number, ready: Omit<SplitReplay, 'head' | 'outcome'>) => void,
): SplitReplay {
  const { run, trees } = s;
  const R = requestReplays(
    run,
    Math.max(1, trees.requestStartMs.length),
    head.blocks.durationMs.length,
    s.opts.replays,
  );
  const workers = run.p.kind === 'pool' ? run.p.workers : Infinity;
  const B = at.blocks[at.blocks.length - 1] ?? 0;
  if (onPart && run.p.kind === 'hedge' && B > 0) {
    // The hedge's output holds R replays of every block: the outputs' room is known first.
    const reqAll = alloc(head.involved.length * R);
    const fanAll = alloc(head.groups * R);
    let blockMs: Float64Array | undefined;
    const ready = (): Omit<SplitReplay, 'head' | 'outcome'> => {
      if (!blockMs) throw new Error('the hedge told a part before its output was made');
      return { at, replays: R, blockMs, workers, reqAll, fanAll };
    };
    const outcome = requestOutcome(run, head.blocks, R, {
      ...prep,
      alloc: (n) => (blockMs = alloc(n)),
      done: {
        ends: at.blocks.subarray(1),
        part: (k) => {
          onPart(k, ready());
        },
      },
    });
    if (replaysIn(outcome, B) !== R) throw new Error('the hedge replayed other than R times');
    return { head, outcome, ...ready() };
  }
  const outcome = requestOutcome(run, head.blocks, R, { ...prep, alloc });
  const replays = run.isPool ? 1 : replaysIn(outcome, B);
  return {
    head,
    at,
    outcome,
    replays,
    blockMs: run.isPool ? undefined : outcome.allLeavesMs,
    workers,
    reqAll: alloc(head.involved.length * replays),
    fanAll: alloc(head.groups * replays),
  };
}

/**
 * What of the policy's replay over the merged calls (head.blocks, once written) a caller can do
 * on other threads before mergedSplitReplay, while it does other work: build the replay index
 * (buildStaticIndex) when `index`, take latencyQuantile(durations, quantile) when `quantile` is
 * given. Their results go to mergedSplitReplay as its `prep`.
 */
export function splitPrepWork(s: SplitAnswer): { index: boolean; quantile: number | undefined } {
  const p = s.run.p;
  if (p.kind === 'pool') return { index: false, quantile: undefined };
  return { index: policyUsesIndex(p), quantile: policyQuantile(p) };
}

/**
 * `prep` (the quantile of splitPrepWork, once known) with the hedge's draw-free pass over the
 * merged calls (withHedgeScan): for a caller to run while the index is still being built.
 */
export function splitPrepScan(s: SplitAnswer, calls: LeafCalls, prep: PolicyPrep): PolicyPrep {
  return s.run.p.kind === 'pool' ? prep : withHedgeScan(calls, s.run.p, prep);
}

/**
 * The pool policy's parts (poolPart: planned and replayed at once, in any thread) laid end to
 * end, ready for finishSplit.
 */
export function poolSplitReplay(s: SplitAnswer, parts: readonly PoolPart[]): SplitReplay {
  const { head, at, reqAll, fanAll } = mergePoolParts(parts);
  return {
    head,
    at,
    outcome: requestOutcome(s.run, head.blocks, 1),
    replays: 1,
    blockMs: undefined,
    workers: s.run.p.kind === 'pool' ? s.run.p.workers : Infinity,
    reqAll,
    fanAll,
  };
}

/**
 * The arrays finishSplit sorts (SortedOutputs, unsorted), for a caller that sorts them on other
 * threads; undefined when the closed-loop model re-times the outputs first (they are sorted
 * after it, in finishSplit).
 */
export function splitSortInputs(
  s: SplitAnswer,
  sr: SplitReplay,
  /** recordedRequestMs of the involved requests, taken elsewhere (splitBaseInputs). */
  recorded?: Float64Array,
): SortedOutputs | undefined {
  const base = splitBaseInputs(s, sr.head, recorded);
  return base && { ...base, req: sr.reqAll, fan: sr.fanAll };
}

/** What a bootstrap reads of its values (bootstrapReads). */
export type BootstrapReads = ReturnType<typeof bootstrapReads>;

/**
 * What finishSplit's bootstrap will read of sr.fanAll and sr.reqAll (bootstrapReads on a clone
 * of the run's bootstrap stream, the groups first, as requestAnswer draws): for a caller that
 * orders those positions on other threads and passes them as SortedOutputs' fan and req (the
 * same bits). Undefined when the closed-loop model re-times the outputs first.
 */
export function splitBootstrapReads(
  s: SplitAnswer,
  sr: SplitReplay,
): { fan: BootstrapReads; req: BootstrapReads } | undefined {
  if (s.loop.apply) return undefined;
  const rng = s.run.bootRng.clone();
  const { samples } = s.run;
  const fan = bootstrapReads(sr.fanAll.length, PERCENTILE_QS, rng, samples, sr.head.groups);
  const req = bootstrapReads(
    sr.reqAll.length,
    PERCENTILE_QS,
    rng,
    samples,
    sr.head.involved.length,
  );
  return { fan, req };
}

/**
 * The recorded half of splitSortInputs, known once the heads are merged: a caller can sort it
 * elsewhere while the policy replays.
 */
export function splitBaseInputs(
  s: SplitAnswer,
  head: RequestHead,
  /** recordedRequestMs(s.trees, head.involved), taken elsewhere (threads). */
  recorded?: Float64Array,
): Pick<SortedOutputs, 'reqBase' | 'fanBase'> | undefined {
  if (s.loop.apply) return undefined;
  const reqBase = recorded ?? recordedRequestMs(s.trees, head.involved);
  return { reqBase, fanBase: head.groupRecordedMs };
}

/**
 * The answer once every part is replayed into sr.reqAll and sr.fanAll. `sorted`: splitSortInputs
 * sorted (sortedCopy) elsewhere; the answer is the same bits.
 */
export function finishSplit(
  s: SplitAnswer,
  sr: SplitReplay,
  sorted?: SortedOutputs,
  /** recordedRequestMs of the involved requests, taken elsewhere (threads); the same bits. */
  recorded?: Float64Array,
): RequestWhatIfResult {
  const { trees, run, loop } = s;
  const n = sr.head.involved.length;
  if (loop.apply) {
    const adjust = loopAdjust(trees, sr.head.involved, loop.apply);
    for (let r = 0; r < sr.replays; r++) adjust(sr.reqAll.subarray(r * n, (r + 1) * n));
  }
  const all = { reqAll: sr.reqAll, fanAll: sr.fanAll };
  const ready = loop.apply ? undefined : sorted;
  const base = baselineOf(trees, sr.head, ready, recorded);
  return requestAnswer(
    trees,
    run,
    sr.head,
    base,
    sr.outcome,
    sr.replays,
    all,
    loop,
    undefined,
    ready,
  );
}
