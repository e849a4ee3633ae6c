/**
 * A SplitExecutor in this thread: `threads` runners (runner.ts) whose tasks run as they are
 * asked, on plain memory. The driver over it is the reference the threaded answers are checked
 * against, and equals simulateRequestWhatIf bit for bit.
 */

import type { RequestTrees } from '../trees';
import type { SplitExecutor, SplitScratch } from './executor';
import { SplitRunner } from './runner';
import type { SplitReply, SplitTask } from './tasks';

export function localExecutor(threads = 1): SplitExecutor {
  const runners = Array.from({ length: Math.max(1, threads) }, () => new SplitRunner());
  const scratch: SplitScratch = {
    f64: (n) => new Float64Array(n),
    u32: (n) => new Uint32Array(n),
    share: (a) => a,
    done: () => undefined,
  };
  return {
    threads: runners.length,
    run(thread: number, task: SplitTask): Promise<SplitReply> {
      const runner = runners[thread];
      if (!runner) return Promise.reject(new Error(`no thread ${String(thread)}`));
      try {
        return Promise.resolve(runner.handle(task));
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    },
    scratch: () => scratch,
    share: (trees: RequestTrees) => trees,
  };
}
