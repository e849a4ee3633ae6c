/**
 * What a split whole-request answer (driver.ts) needs from where its tasks run: threads to run
 * them on, memory they can all write, trees they can all read. apps/api supplies one over
 * worker_threads; local-executor.ts runs the same tasks in this thread.
 */

import type { RequestTrees } from '../trees';
import type { SplitReply, SplitTask } from './tasks';

/**
 * Memory for one answer that every thread can write (shared memory across threads). Its arrays
 * are NOT zeroed: the driver writes every value of what it takes before reading it.
 */
export interface SplitScratch {
  readonly f64: (n: number) => Float64Array;
  readonly u32: (n: number) => Uint32Array;
  /** `a` where every thread can read it: `a` itself when it is already, else a copy. */
  readonly share: (a: Float64Array) => Float64Array;
  /**
   * Ends the answer: `reuse` gives its memory to the next one (not after a failure, when a
   * thread may still be writing into it).
   */
  readonly done: (reuse: boolean) => void;
}

export interface SplitExecutor {
  /** How many threads run the tasks (at least 1). */
  readonly threads: number;
  /**
   * Runs `task` on thread `thread` (0 <= thread < threads; a thread keeps what its tasks plan,
   * and runs its tasks in the order given); resolves with the reply, rejects with the task's
   * error.
   */
  run(thread: number, task: SplitTask): Promise<SplitReply>;
  /** Memory for one answer (SplitScratch). */
  scratch(): SplitScratch;
  /** `trees` where every thread can read them (shared memory across threads). */
  share(trees: RequestTrees): RequestTrees;
}
