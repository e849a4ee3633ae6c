/* eslint-disable @typescript-eslint/no-non-null-assertion -- threads indexed in bounds by construction. */
import type { Worker } from 'node:worker_threads';
import type { ThreadReply, ThreadTask } from './request-thread-messages';

/** The replay threads' queues, for RequestReplayThreads (request-threads.ts). */
/** One replay thread and its one outstanding task. */
export class Thread {
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

/** Runs tasks 0..count-1, each on the first thread free; the replies in task order. */
export async function feedThreads(
  threads: readonly Thread[],
  count: number,
  task: (i: number) => ThreadTask,
): Promise<{ reply: ThreadReply; thread: number }[]> {
  const out: { reply: ThreadReply; thread: number }[] = [];
  let next = 0;
  const run = async (thread: number): Promise<void> => {
    while (next < count) {
      const i = next++;
      out[i] = { reply: await threads[thread]!.ask(task(i)), thread };
    }
  };
  await Promise.all(threads.map((_, i) => run(i)));
  return out;
}
