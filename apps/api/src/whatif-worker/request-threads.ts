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
  splitPrepScan,
  splitPrepWork,
  splitSortInputs,
  startSplit,
  type EdgeTarget,
  type LeafCalls,
  type PolicyPrep,
  type RequestHead,
  type RequestSimulateOptions,
  type RequestTrees,
  type RequestWhatIfResult,
  type SortedOutputs,
  type SplitAnswer,
  type SplitReplay,
  type WhatIfPolicy,
} from '@tailscope/analysis';

import { SharedScratch, type ScratchAlloc } from './shared-scratch';
import { shareTrees, type ThreadReply, type ThreadTask } from './request-thread-messages';

export { shareTrees, type ThreadReply, type ThreadTask };

/** One replay thread and its one outstanding task. */
class Thread {
  private pending: { ok: (r: ThreadReply) => void; fail: (e: Error) => void }[] = [];
  constructor(readonly worker: Worker) {
    worker.on('message', (r: ThreadReply) => {
      const p = this.pending.shift();
      if (!p) return;
      if (r.type === 'error') p.fail(new Error(r.message));
      else p.ok(r);
    });
    worker.on('error', (e) => {
      for (const p of this.pending.splice(0)) p.fail(e);
    });
    // A thread that ends (out of memory, terminated) fails what it still owed.
    worker.on('exit', (code) => {
      for (const p of this.pending.splice(0))
        p.fail(new Error(`replay thread exited (${String(code)})`));
    });
  }
  /** Resolves with the reply to this task (the thread answers its tasks in order). */
  ask(task: ThreadTask | undefined): Promise<ThreadReply> {
    return new Promise((ok, fail) => {
      this.pending.push({ ok, fail });
      if (task) this.worker.postMessage(task);
    });
  }
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
 * intervals are taken here. The answer is
 * simulateRequestWhatIf's bit for bit, whatever the number of threads (request-parts.ts).
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
    return finishSplit(s, sr, await this.sortAll(s, sr, mem));
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
    // The parts' heads came without their calls: the threads that planned them write the calls
    // straight into the merged columns, on shared memory (request-part-calls.ts).
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
    const calls = merged.head.blocks;
    // The involved requests' recorded times too: 1 million scattered reads, twice, were ~50 ms
    // of this thread's time (splitBaseInputs, then the baseline's mean).
    const recorded = mem.f64(merged.head.involved.length);
    await Promise.all(
      planned.map((p, part) =>
        this.threads[p.thread]!.ask({
          type: 'calls',
          part,
          merged: calls,
          blockAt: merged.at.blocks[part]!,
          callAt: callAt[part]!,
          recorded,
          involvedAt: merged.at.involved[part]!,
        }),
      ),
    );
    // The policy's index and quantile on the threads first, then the recorded outputs' sorts
    // (they need no replay), while this thread waits for the first and then replays.
    const work = splitPrepWork(s);
    const prep = this.prepare(s, work, calls);
    prep.catch(() => undefined); // awaited below; a failure meanwhile is not unhandled
    const base = splitBaseInputs(s, merged.head, recorded);
    const early = base && this.sortBase(base, work.index ? 1 : 0, mem);
    // Awaited in sortAll; handled here too, so a failed sort is not unhandled meanwhile.
    early?.catch(() => undefined);
    const sr = mergedSplitReplay(s, merged, mem.f64, await prep);
    const blockMs =
      sr.blockMs && !(sr.blockMs.buffer instanceof SharedArrayBuffer)
        ? mem.copy(sr.blockMs)
        : sr.blockMs;
    const { at, replays, workers, reqAll, fanAll } = sr;
    await Promise.all(
      planned.map((p, part) =>
        this.threads[p.thread]!.ask({
          type: 'replay',
          part,
          at,
          blockMs,
          replays,
          workers,
          reqAll,
          fanAll,
        }),
      ),
    );
    const sorted = await this.sortAll(s, sr, mem, early, recorded);
    return finishSplit(s, sr, sorted, recorded);
  }

  /**
   * The policy's work on the merged calls that needs no draws (splitPrepWork): the replay index
   * on thread 0 and the quantile on thread 1 at once; the hedge's scan here once the quantile
   * is in, while the index is still being built (splitPrepScan).
   */
  private async prepare(
    s: SplitAnswer,
    work: { index: boolean; quantile: number | undefined },
    calls: LeafCalls,
  ): Promise<PolicyPrep> {
    const n = this.threads.length;
    const q = work.quantile;
    const indexed = work.index ? this.threads[0]!.ask({ type: 'index', calls }) : undefined;
    indexed?.catch(() => undefined); // awaited below, after the quantile
    const quantile =
      q === undefined
        ? undefined
        : await this.threads[1 % n]!.ask({ type: 'quantile', values: calls.durationMs, q });
    const prep = splitPrepScan(
      s,
      calls,
      quantile?.type === 'quantile' ? { quantile: quantile.value } : {},
    );
    const index = await indexed;
    return index?.type === 'index' ? { ...prep, index: index.index } : prep;
  }

  /**
   * Sorts the recorded outputs (splitBaseInputs) on the threads, on shared copies, from thread
   * `from` on (1: thread 0 builds the replay index meanwhile, so both go to thread 1).
   */
  private async sortBase(
    base: Pick<SortedOutputs, 'reqBase' | 'fanBase'>,
    from: number,
    mem: ScratchAlloc,
  ): Promise<Pick<SortedOutputs, 'reqBase' | 'fanBase'>> {
    const reqBase = mem.copy(base.reqBase);
    const fanBase = mem.copy(base.fanBase);
    const n = this.threads.length;
    await Promise.all([
      this.threads[from % n]!.ask({ type: 'sort', values: reqBase }),
      this.threads[1 % n]!.ask({ type: 'sort', values: fanBase }),
    ]);
    return { reqBase, fanBase };
  }

  /**
   * The four arrays the answer sorts (splitSortInputs: 1 million values each at 1M requests,
   * ~50 ms each), sorted on the threads in place of the calling thread, on shared copies.
   */
  private async sortAll(
    s: SplitAnswer,
    sr: SplitReplay,
    mem: ScratchAlloc,
    /** The recorded outputs already being sorted (sortBase). */
    early?: Promise<Pick<SortedOutputs, 'reqBase' | 'fanBase'>>,
    /** The involved requests' recorded times, taken on the threads. */
    recorded?: Float64Array,
  ): Promise<SortedOutputs | undefined> {
    const inputs = splitSortInputs(s, sr, recorded);
    if (!inputs) return undefined;
    const keys = early
      ? (['req', 'fan'] as const)
      : (['req', 'fan', 'reqBase', 'fanBase'] as const);
    const shared = keys.map((k) => mem.copy(inputs[k]));
    await this.feed(keys.length, (i) => ({ type: 'sort', values: shared[i]! }));
    const base = early ? await early : { reqBase: shared[2]!, fanBase: shared[3]! };
    return { req: shared[0]!, fan: shared[1]!, ...base };
  }

  /** Plans every part, each on the first thread free; returns them in part order. */
  private async planAll(
    parts: { from: number; to: number }[],
    target: EdgeTarget,
    policy: WhatIfPolicy,
    calls: boolean,
  ): Promise<
    { head: RequestHead; blocks: number; calls: number; overflow: boolean; thread: number }[]
  > {
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
    task: (i: number) => ThreadTask,
  ): Promise<{ reply: ThreadReply; thread: number }[]> {
    const out: { reply: ThreadReply; thread: number }[] = [];
    let next = 0;
    const run = async (thread: number): Promise<void> => {
      while (next < count) {
        const i = next++;
        out[i] = { reply: await this.threads[thread]!.ask(task(i)), thread };
      }
    };
    await Promise.all(this.threads.map((_, i) => run(i)));
    return out;
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }
}
