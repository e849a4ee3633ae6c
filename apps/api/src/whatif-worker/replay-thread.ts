import type { Worker } from 'node:worker_threads';
import type { SplitReply, SplitTask } from '@tailscope/analysis';

/** One replay thread and its outstanding tasks, for RequestReplayThreads (request-threads.ts). */
export class Thread {
  private pending: { ok: (r: SplitReply) => void; fail: (e: Error) => void }[] = [];
  constructor(readonly worker: Worker) {
    worker.on('message', (r: SplitReply) => {
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
  ask(task: SplitTask | undefined): Promise<SplitReply> {
    return new Promise((ok, fail) => {
      this.pending.push({ ok, fail });
      if (task) this.worker.postMessage(task);
    });
  }
}
