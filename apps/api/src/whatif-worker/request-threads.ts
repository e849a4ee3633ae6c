/* eslint-disable @typescript-eslint/no-non-null-assertion -- parts and threads indexed in bounds by construction. */
import { Worker } from 'node:worker_threads';
import {
  finishSplit,
  mergedCallRoom,
  mergedSplitReplay,
  mergeParts,
  PART_REQUESTS,
  POOL_PART_REQUESTS,
  poolSplitReplay,
  requestParts,
  targetMask,
  simulateRequestWhatIf,
  splitBaseInputs,
  splitPrepWork,
  startSplit,
  type EdgeTarget,
  type PolicyPrep,
  type RequestHead,
  type RequestSimulateOptions,
  type RequestTrees,
  type RequestWhatIfResult,
  type SplitAnswer,
  type SplitReplay,
  type WhatIfPolicy,
} from '@tailscope/analysis';

import { SharedScratch, type ScratchAlloc } from './shared-scratch';
import { feedThreads, Thread } from './replay-thread';
import { prepareOnThreads, sortAllOnThreads, sortBaseOnThreads } from './request-thread-steps';
import { shareTrees, type ThreadReply, type ThreadTask } from './request-thread-messages';

export { shareTrees, type ThreadReply, type ThreadTask };

/** A part planned on a thread (which keeps its plan): its head, counts and thread. */
interface PlannedPart {
  head: RequestHead;
  blocks: number;
  calls: number;
  overflow: boolean;
  thread: number;
}

/**
 * The whole-request what-if answer on several threads (issue #14's performance part): the
 * trees on shared memory. The pool policy draws nothing: each thread plans and replays parts
 * of POOL_PART_REQUESTS requests as it frees up (poolPart, in memory it reuses) and sends back
 * their outputs. Other policies: each thread plans parts of PART_REQUESTS requests and writes
 * their target calls into shared merged columns, two threads build the policy's replay index
 * and quantile on them (splitPrepWork) while the recorded outputs are sorted, the policy
 * replays the merged target calls here (its draws are one random stream) into shared memory,
 * each thread replays the parts it planned into shared outputs, and the percentiles and
 * intervals are taken here. The hedge hands each part to its thread as soon as the part's
 * blocks are drawn. The answer is simulateRequestWhatIf's bit for bit, whatever the number of threads (request-parts.ts).
 */
export class RequestReplayThreads {
  private trees: RequestTrees | undefined;
  /** The answers' shared arrays, reused (shared-scratch.ts). */
  private readonly scratch = new SharedScratch();
  private constructor(private readonly threads: Thread[]) {}

  /** Starts `count` threads (each loads the analysis once: start them before answers). */
  static async start(count: number): Promise<RequestReplayThreads> {
    const url = new URL('./request-thread-entry.mjs', import.meta.url);
    const threads = Array.from({ length: Math.max(1, count) }, () => new Thread(new Worker(url)));
    await Promise.all(threads.map((t) => t.ask(undefined)));
    return new RequestReplayThreads(threads);
  }

  /** Shares `trees` with the threads (once per set of trees; `trees` should be shareTrees'). */
  async load(trees: RequestTrees): Promise<void> {
    this.trees = trees;
    const shared = trees.parent.buffer instanceof SharedArrayBuffer ? trees : shareTrees(trees);
    const slim = { ...shared, traceIds: [] };
    await Promise.all(this.threads.map((t) => t.ask({ type: 'trees', trees: slim })));
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
    const mem = this.scratch.take();
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
    mem: ScratchAlloc,
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
    return finishSplit(s, sr, await sortAllOnThreads(this.threads, s, sr, mem));
  }

  /** Every other policy: plan the parts, replay the policy here, replay the parts, finish. */
  private async splitAnswer(
    s: SplitAnswer,
    target: EdgeTarget,
    policy: WhatIfPolicy,
    mem: ScratchAlloc,
    partSize: number | undefined,
  ): Promise<RequestWhatIfResult> {
    const { trees } = s;
    const parts = requestParts(trees.nodeOffsets.length - 1, partSize ?? PART_REQUESTS);
    const planned = await this.planAll(parts, target, policy, !s.run.isPool);
    if (planned.some((p) => p.overflow))
      return simulateRequestWhatIf(trees, target, policy, s.opts);
    const { merged, recorded } = await this.mergeCalls(planned, mem);
    const calls = merged.head.blocks;
    // The policy's index and quantile on the threads first, then the recorded outputs' sorts
    // (they need no replay), while this thread waits for the first and then replays.
    const work = splitPrepWork(s);
    const prep = prepareOnThreads(this.threads, s, work, calls);
    prep.catch(() => undefined); // awaited below; a failure meanwhile is not unhandled
    const base = splitBaseInputs(s, merged.head, recorded);
    const early = base && sortBaseOnThreads(this.threads, base, work.index ? 1 : 0, mem);
    // Awaited in sortAll; handled here too, so a failed sort is not unhandled meanwhile.
    early?.catch(() => undefined);
    const sr = await this.replayAll(s, merged, planned, mem, await prep);
    const sorted = await sortAllOnThreads(this.threads, s, sr, mem, early, recorded);
    return finishSplit(s, sr, sorted, recorded);
  }

  /**
   * The parts' heads merged (they came without their calls): the threads that planned them
   * write the calls straight into the merged columns, on shared memory (request-part-calls.ts).
   */
  private async mergeCalls(
    planned: PlannedPart[],
    mem: ScratchAlloc,
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
    // of this thread's time (splitBaseInputs, then the baseline's mean).
    const recorded = mem.f64(merged.head.involved.length);
    await Promise.all(
      planned.map((p, part) =>
        this.threads[p.thread]!.ask({
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
    mem: ScratchAlloc,
    prep: PolicyPrep,
  ): Promise<SplitReplay> {
    // Each part is replayed on the thread that planned it, as soon as the policy's times of its
    // blocks are final (the hedge hands parts on while it still draws later ones), else after.
    const replayed: Promise<ThreadReply>[] = [];
    const replay = (part: number, r: Omit<SplitReplay, 'head' | 'outcome'>): void => {
      const { at, blockMs, replays, workers, reqAll, fanAll } = r;
      const task: ThreadTask = {
        type: 'replay',
        part,
        at,
        blockMs,
        replays,
        workers,
        reqAll,
        fanAll,
      };
      const done = this.threads[planned[part]!.thread]!.ask(task);
      done.catch(() => undefined); // awaited below; a failure meanwhile is not unhandled
      replayed[part] = done;
    };
    const sr = mergedSplitReplay(s, merged, mem.f64, prep, replay);
    const blockMs =
      sr.blockMs && !(sr.blockMs.buffer instanceof SharedArrayBuffer)
        ? mem.copy(sr.blockMs)
        : sr.blockMs;
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
  private feed(
    count: number,
    task: (i: number) => ThreadTask,
  ): Promise<{ reply: ThreadReply; thread: number }[]> {
    return feedThreads(this.threads, count, task);
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }
}
