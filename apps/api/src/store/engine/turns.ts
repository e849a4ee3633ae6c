import { ClientGoneError, type Work } from './admission';

/**
 * Turns at the embedded engine. chDB runs parameterized queries one at a time, process-wide, in
 * the order they were sent (chdb-node serializes them: concurrent ones corrupt each other's
 * parameters), so an insert sent after N analysis queries waits for all N. Queries take a turn
 * here first, one at a time: ingest's inserts and background work before any analysis query
 * still waiting, so they wait at most for the query running; a live answer's recomputation after
 * every other. Within a rank, first come, first served. A waiting turn whose signal aborts is
 * dropped. Unless TAILSCOPE_READ_SESSION=0, the cheap answers (a trace, a search) take turns of
 * their own, on their own session (read-session.ts).
 *
 * Tried and reverted: a third rank putting the cheap answers before background work on this
 * one session made HotROD's whole-request what-if take 11-28 s instead of 2-3 s.
 */
export class EngineTurns {
  private busy = false;
  private readonly waiting: { rank: number; go: () => void }[] = [];

  /**
   * Waits for a turn; returns its release (call it once, when the query and its drain end).
   * `deferred`: background work no person waits for (a live answer's recomputation) goes after
   * every other turn waiting.
   */
  async take(urgent: boolean, signal?: AbortSignal, deferred = false): Promise<() => void> {
    const rank = urgent ? 0 : deferred ? 2 : 1;
    if (signal?.aborted) throw new ClientGoneError();
    if (!this.busy) {
      this.busy = true;
      return this.release();
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const i = this.waiting.indexOf(turn);
        if (i < 0) return;
        this.waiting.splice(i, 1);
        reject(new ClientGoneError());
      };
      const turn = {
        rank,
        go: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      // A turn goes after those of its rank already waiting, before every lower one.
      const at = this.waiting.findIndex((w) => w.rank > rank);
      if (at < 0) this.waiting.push(turn);
      else this.waiting.splice(at, 0, turn);
    });
    return this.release();
  }

  /** Turns waiting (tests). */
  get queued(): number {
    return this.waiting.length;
  }

  private release(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiting.shift();
      if (next) next.go();
      else this.busy = false;
    };
  }
}

/**
 * Waits while background `work` gives way: deferred, and its `yieldTo` says a person's work runs
 * or waits. Polled (every `pollMs`): a person's request leaves gaps between its own queries (its
 * JavaScript), and a background query started in one made that person wait for all of it. Ends
 * when the work is promoted (a person joined it), at its deadline (its budget then refuses the
 * query), or throws ClientGoneError when its signal aborts.
 */
export async function yieldWhileBusy(work: Work, signal?: AbortSignal, pollMs = 20): Promise<void> {
  while (work.deferred === true && work.yieldTo?.() === true && Date.now() < work.deadlineMs) {
    if (signal?.aborted) throw new ClientGoneError();
    await new Promise((ok) => setTimeout(ok, pollMs));
  }
}
