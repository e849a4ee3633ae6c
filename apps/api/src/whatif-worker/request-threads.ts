import { Worker } from 'node:worker_threads';
import {
  SplitDriver,
  type EdgeTarget,
  type RequestSimulateOptions,
  type RequestTrees,
  type RequestWhatIfResult,
  type SplitExecutor,
  type WhatIfPolicy,
} from '@tailscope/analysis';

import { SharedScratch, shareTrees } from './shared-scratch';
import { Thread } from './replay-thread';

export { shareTrees };

/**
 * The whole-request what-if answer on worker threads (issue #14's performance part): the
 * analysis' SplitDriver (its schedule: which part is planned and replayed where) over an
 * executor whose threads are worker_threads, each running a SplitRunner
 * (request-thread.ts), on shared memory (shared-scratch.ts). The answer is
 * simulateRequestWhatIf's bit for bit, whatever the number of threads.
 */
export class RequestReplayThreads {
  private readonly driver: SplitDriver;
  private constructor(private readonly threads: Thread[]) {
    /** The answers' shared arrays, reused (shared-scratch.ts). */
    const scratch = new SharedScratch();
    const executor: SplitExecutor = {
      threads: threads.length,
      run: (t, task) => {
        const thread = threads[t];
        if (!thread) return Promise.reject(new Error(`no replay thread ${String(t)}`));
        return thread.ask(task);
      },
      scratch: () => scratch.take(),
      share: (trees) =>
        trees.parent.buffer instanceof SharedArrayBuffer ? trees : shareTrees(trees),
    };
    this.driver = new SplitDriver(executor);
  }

  /** Starts `count` threads (each loads the analysis once: start them before answers). */
  static async start(count: number): Promise<RequestReplayThreads> {
    const url = new URL('./request-thread-entry.mjs', import.meta.url);
    const threads = Array.from({ length: Math.max(1, count) }, () => new Thread(new Worker(url)));
    await Promise.all(threads.map((t) => t.ask(undefined)));
    return new RequestReplayThreads(threads);
  }

  /** Shares `trees` with the threads (once per set of trees; `trees` should be shareTrees'). */
  load(trees: RequestTrees): Promise<void> {
    return this.driver.load(trees);
  }

  /** simulateRequestWhatIf on the loaded trees (no trace weights, no prepared plan). */
  simulate(
    target: EdgeTarget,
    policy: WhatIfPolicy,
    opts: RequestSimulateOptions = {},
    /** Requests per part (default PART_REQUESTS, or POOL_PART_REQUESTS for `pool`). */
    partSize?: number,
  ): Promise<RequestWhatIfResult> {
    return this.driver.simulate(target, policy, opts, partSize);
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }
}
