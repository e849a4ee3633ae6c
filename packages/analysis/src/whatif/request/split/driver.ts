/**
 * The schedule of a whole-request answer split into parts, over an executor (executor.ts):
 * which task runs on which thread, and what the driver does meanwhile. One driver for one
 * thread and many: apps/api gives it worker threads, local-executor.ts this thread.
 */

import type { LeafCalls } from '../../../types';
import type { PolicyPrep, WhatIfPolicy } from '../../policies';
import {
  mergeParts,
  PART_REQUESTS,
  POOL_PART_REQUESTS,
  requestParts,
  simulateRequestWhatIf,
  targetMask,
  type EdgeTarget,
  type RequestHead,
  type RequestSimulateOptions,
  type RequestWhatIfResult,
} from '../answer';
import type { RequestTrees } from '../trees';
import type { SplitExecutor, SplitScratch } from './executor';
import { mergedCallRoom } from './part-calls';
import {
  finishSplit,
  mergedSplitReplay,
  poolSplitReplay,
  splitBaseInputs,
  splitPrepWork,
  startSplit,
  type SplitAnswer,
  type SplitReplay,
} from './split';
import { prepareOnThreads, sortAllOnThreads, sortBaseOnThreads } from './steps';
import type { SplitReply, SplitTask } from './tasks';

/** A part planned on a thread (which keeps its plan): its head, counts and thread. */
interface PlannedPart {
  head: RequestHead;
  blocks: number;
  calls: number;
  overflow: boolean;
  thread: number;
}

/**
 * The whole-request what-if answer on an executor's threads (issue #14's performance part):
 * the trees on memory every thread reads. The pool policy draws nothing: each thread plans and
 * replays parts of POOL_PART_REQUESTS requests as it frees up (poolPart, in memory it reuses)
 * and sends back their outputs. Other policies: each thread plans parts of PART_REQUESTS
 * requests and writes their target calls into shared merged columns, two threads build the
 * policy's replay index and quantile on them (splitPrepWork) while the recorded outputs are
 * sorted, the policy replays the merged target calls in the driver (its draws are one random
 * stream) into shared memory, each thread replays the parts it planned into shared outputs,
 * and the percentiles and intervals are taken in the driver. The hedge hands each part to its
 * thread as soon as the part's blocks are drawn. The answer is simulateRequestWhatIf's bit for
 * bit, whatever the number of threads (parts.ts).
 */
export class SplitDriver {
  private trees: RequestTrees | undefined;

  constructor(private readonly exec: SplitExecutor) {}

  /** Gives `trees` to every thread (once per set of trees). */
  async load(trees: RequestTrees): Promise<void> {
    this.trees = trees;
    const shared = this.exec.share(trees);
    const slim = { ...shared, traceIds: [] };
    await Promise.all(this.onEach((t) => this.exec.run(t, { type: 'trees', trees: slim })));
  }

  /** simulateRequestWhatIf on the loaded trees (no trace weights, no prepared plan). */
  async simulate(
    target: EdgeTarget,
    policy: WhatIfPolicy,
    opts: RequestSimulateOptions = {},
    /** Requests per part (default PART_REQUESTS, or POOL_PART_REQUESTS for `pool`). */
    partSize?: number,
  ): Promise<RequestWhatIfResult> {
    const trees = this.trees;
    if (!trees) throw new Error('no trees loaded');
    const s = startSplit(trees, target, policy, opts);
    const mem = this.exec.scratch();
    let ok = false;
    try {
      const answer =
        s.run.p.kind === 'pool'
          ? await this.poolAnswer(s, target, s.run.p.workers, mem, partSize)
          : await this.splitAnswer(s, target, policy, mem, partSize);
      ok = true;
      return answer;
    } finally {
      mem.done(ok);
    }
  }

  /** The pool policy: each thread plans and replays parts as it frees up (poolPart). */
  private async poolAnswer(
    s: SplitAnswer,
    target: EdgeTarget,
    workers: number,
    mem: SplitScratch,
    partSize: number | undefined,
  ): Promise<RequestWhatIfResult> {
    const mask = targetMask(s.trees, target);
    const ranges = requestParts(s.trees.nodeOffsets.length - 1, partSize ?? POOL_PART_REQUESTS);
    const done = await this.feed(ranges.length, (part) => ({
      type: 'pool',
      part,
      range: ranges[part]!,
      mask,
      workers,
    }));
    const sr = poolSplitReplay(
      s,
      done.map(({ reply }) => {
        if (reply.type !== 'pool') throw new Error('unexpected reply');
        return reply.result;
      }),
    );
    return finishSplit(s, sr, await sortAllOnThreads(this.exec, s, sr, mem));
  }

  /** Every other policy: plan the parts, replay the policy here, replay the parts, finish. */
  private async splitAnswer(
    s: SplitAnswer,
    target: EdgeTarget,
    policy: WhatIfPolicy,
    mem: SplitScratch,
    partSize: number | undefined,
  ): Promise<RequestWhatIfResult> {
    const { trees } = s;
    const parts = requestParts(trees.nodeOffsets.length - 1, partSize ?? PART_REQUESTS);
    const planned = await this.planAll(parts, target, policy, !s.run.isPool);
    if (planned.some((p) => p.overflow))
      return simulateRequestWhatIf(trees, target, policy, s.opts);
    const { merged, recorded } = await this.mergeCalls(planned, mem);
    const calls: LeafCalls = merged.head.blocks;
    // The policy's index and quantile on the threads first, then the recorded outputs' sorts
    // (they need no replay), while the driver waits for the first and then replays.
    const work = splitPrepWork(s);
    const prep = prepareOnThreads(this.exec, s, work, calls);
    prep.catch(() => undefined); // awaited below; a failure meanwhile is not unhandled
    const base = splitBaseInputs(s, merged.head, recorded);
    const early = base && sortBaseOnThreads(this.exec, base, work.index ? 1 : 0, mem);
    // Awaited in sortAll; handled here too, so a failed sort is not unhandled meanwhile.
    early?.catch(() => undefined);
    const sr = await this.replayAll(s, merged, planned, mem, await prep);
    const sorted = await sortAllOnThreads(this.exec, s, sr, mem, early, recorded);
    return finishSplit(s, sr, sorted, recorded);
  }

  /**
   * The parts' heads merged (they came without their calls): the threads that planned them
   * write the calls straight into the merged columns, on shared memory (part-calls.ts).
   */
  private async mergeCalls(
    planned: PlannedPart[],
    mem: SplitScratch,
  ): Promise<{ merged: ReturnType<typeof mergeParts>; recorded: Float64Array }> {
    const merged = mergeParts(
      planned.map((p) => p.head),
      planned.map((p) => p.blocks),
    );
    const callAt = mergedCallRoom(
      merged.head,
      merged.at,
      planned.map((p) => p.calls),
      mem.f64,
      mem.u32,
    );
    // The involved requests' recorded times too: 1 million scattered reads, twice, were ~50 ms
    // of the driver's time (splitBaseInputs, then the baseline's mean).
    const recorded = mem.f64(merged.head.involved.length);
    await Promise.all(
      planned.map((p, part) =>
        this.exec.run(p.thread, {
          type: 'calls',
          part,
          merged: merged.head.blocks,
          blockAt: merged.at.blocks[part]!,
          callAt: callAt[part]!,
          recorded,
          involvedAt: merged.at.involved[part]!,
        }),
      ),
    );
    return { merged, recorded };
  }

  /** The policy's replay here, and every part's on the thread that planned it. */
  private async replayAll(
    s: SplitAnswer,
    merged: ReturnType<typeof mergeParts>,
    planned: PlannedPart[],
    mem: SplitScratch,
    prep: PolicyPrep,
  ): Promise<SplitReplay> {
    // Each part is replayed on the thread that planned it, as soon as the policy's times of its
    // blocks are final (the hedge hands parts on while it still draws later ones), else after.
    const replayed: Promise<SplitReply>[] = [];
    const replay = (part: number, r: Omit<SplitReplay, 'head' | 'outcome'>): void => {
      const { at, blockMs, replays, workers, reqAll, fanAll } = r;
      const task: SplitTask = {
        type: 'replay',
        part,
        at,
        blockMs,
        replays,
        workers,
        reqAll,
        fanAll,
      };
      const done = this.exec.run(planned[part]!.thread, task);
      done.catch(() => undefined); // awaited below; a failure meanwhile is not unhandled
      replayed[part] = done;
    };
    const sr = mergedSplitReplay(s, merged, mem.f64, prep, replay);
    const blockMs = sr.blockMs && mem.share(sr.blockMs);
    for (let part = 0; part < planned.length; part++)
      if (!(part in replayed)) replay(part, { ...sr, blockMs });
    await Promise.all(replayed);
    return sr;
  }

  /** Plans every part, each on the first thread free; returns them in part order. */
  private async planAll(
    parts: { from: number; to: number }[],
    target: EdgeTarget,
    policy: WhatIfPolicy,
    calls: boolean,
  ): Promise<PlannedPart[]> {
    const done = await this.feed(parts.length, (part) => ({
      type: 'plan',
      part,
      range: parts[part]!,
      target,
      policy,
      calls,
    }));
    return done.map(({ reply, thread }) => {
      if (reply.type !== 'planned') throw new Error('unexpected reply');
      const { head, blocks, calls, overflow } = reply;
      return { head, blocks, calls, overflow, thread };
    });
  }

  /** Runs tasks 0..count-1, each on the first thread free; the replies in task order. */
  private async feed(
    count: number,
    task: (i: number) => SplitTask,
  ): Promise<{ reply: SplitReply; thread: number }[]> {
    const out: { reply: SplitReply; thread: number }[] = [];
    let next = 0;
    const run = async (thread: number): Promise<void> => {
      while (next < count) {
        const i = next++;
        out[i] = { reply: await this.exec.run(thread, task(i)), thread };
      }
    };
    await Promise.all(this.onEach(run));
    return out;
  }

  /** `f` of every thread's index. */
  private onEach<T>(f: (thread: number) => T): T[] {
    return Array.from({ length: this.exec.threads }, (_, t) => f(t));
  }
}
