import { AsyncLocalStorage } from 'node:async_hooks';
import { HttpError } from '../../foundation';
import { QueryBudgetError, type QueryBudget } from './budget';

/**
 * Admission: how many requests of a class run at once, and what the rest are told. Tailscope's
 * heavy work is a ClickHouse query as often as a worker thread (the embedded engine runs
 * in-process, and chDB runs parameterized queries one at a time, process-wide), so a burst of
 * analyses is bounded where it enters, before its first query: `slots` run, `maxQueue` wait,
 * the next is answered 503 with Retry-After at once. Waiting counts against the query budget:
 * a request still queued at its deadline is answered 503 without running; one whose client left
 * is dropped from the queue. Two classes, two gates: cheap answers (stats, trace reads and
 * search) never queue behind analyses.
 */
export type WorkClass = 'analysis' | 'interactive';

/** The request being served, as the store and the analysis pool see it (AsyncLocalStorage). */
export interface Work {
  readonly workClass: WorkClass;
  /** Aborts when the client goes away: queued queries and jobs are dropped, running ones stop. */
  readonly signal: AbortSignal;
  /** When the request's query budget runs out (arrival + TAILSCOPE_QUERY_TIMEOUT_SECONDS), ms. */
  readonly deadlineMs: number;
  /**
   * Background work no person waits for: its queries take the engine after every other, and
   * none starts while `yieldTo` says a person's work runs or waits (the gaps between that
   * work's own queries included). Cleared when a person's request joins its computation
   * (answer-cache.ts): from then on a person waits for it.
   */
  deferred?: boolean;
  readonly yieldTo?: () => boolean;
}

const current = new AsyncLocalStorage<Work>();

/** Runs `f` as part of `work`: every store query and pool job it starts carries it. */
export function runAsWork<T>(work: Work, f: () => T): T {
  return current.run(work, f);
}

/** The request this code runs for, if any (undefined: startup, materializers, ingest). */
export function currentWork(): Work | undefined {
  return current.getStore();
}

/**
 * The compute time of the costliest kept answer a request used (cache/index.ts notes it): an
 * answer read from the answer cache is cheap for its asker but was not cheap to make, and the
 * live answers (server/live-answers.ts) keep an answer by what it would cost to make again.
 */
const answerCosts = new WeakMap<Work, number>();

/** Notes that the current request used an answer that took `ms` to compute. */
export function noteAnswerCost(ms: number): void {
  const w = current.getStore();
  if (w) answerCosts.set(w, Math.max(answerCosts.get(w) ?? 0, ms));
}

/** The costliest answer `work` used, ms (0: none noted). */
export function answerCostOf(work: Work): number {
  return answerCosts.get(work) ?? 0;
}

/**
 * Runs `f` outside any request: background work a request only started (a refresh other
 * requests join) must not stop when that request's client leaves or its budget ends.
 */
export function outsideWork<T>(f: () => T): T {
  return current.exit(f);
}

/** Budget left to `work`, whole ms (never below 0: timers take integers). */
export function remainingMs(work: Work): number {
  return Math.max(0, Math.ceil(work.deadlineMs - Date.now()));
}

/** 503 with Retry-After: the class's queue is full; the error handler sets the header. */
export class BusyError extends HttpError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(503, message);
    this.name = 'BusyError';
  }
}

/**
 * The client closed the connection before its answer: nothing to answer and nothing wrong
 * here (499, nginx's "client closed request"; written to a closed socket, logged at info).
 */
export class ClientGoneError extends HttpError {
  constructor() {
    super(499, 'client closed the request');
    this.name = 'ClientGoneError';
  }
}

export interface GateLimits {
  /** Requests of the class running at once. */
  slots: number;
  /** Requests waiting for a slot at most; one more is answered 503 at once. */
  maxQueue: number;
}

/** What a gate did, since it was made (tests and /metrics read it). */
export interface GateStats {
  running: number;
  queued: number;
  /** Given a slot (at once or after waiting). */
  admitted: number;
  /** Answered 503 at once: the queue was full. */
  rejected: number;
  /** Answered 503 without running: still queued at the deadline. */
  expired: number;
  /** Dropped from the queue: the client went away. */
  dropped: number;
  /** Slots given back (the request answered, failed or was aborted). */
  finished: number;
}

interface Waiter {
  admit: () => void;
}

export class AdmissionGate {
  private readonly queue: Waiter[] = [];
  /**
   * Background work (a live answer's recomputation, server/live-answers.ts) runs in a slot of its
   * own, one at a time, and starts only when no person's request runs or waits: a person never
   * waits at the gate for it, and it rarely shares the engine (one query at a time) with one.
   */
  private readonly background: Waiter[] = [];
  private backgroundRunning = 0;
  private readonly counts: Omit<GateStats, 'running' | 'queued'> = {
    admitted: 0,
    rejected: 0,
    expired: 0,
    dropped: 0,
    finished: 0,
  };
  private running = 0;
  /** Smoothed time a slot is held, ms: Retry-After's estimate. */
  private heldMs = 1000;

  constructor(
    readonly workClass: WorkClass,
    readonly limits: GateLimits,
    private readonly budget: QueryBudget,
  ) {}

  /** A person's request of this class is running or waiting (background refreshes aside). */
  get busy(): boolean {
    return this.running > 0 || this.queue.length > 0;
  }

  stats(): GateStats {
    return {
      running: this.running + this.backgroundRunning,
      queued: this.queue.length + this.background.length,
      ...this.counts,
    };
  }

  /**
   * Waits for a slot and returns its release (call it once, when the request is done). Throws
   * BusyError when the queue is full, QueryBudgetError (503) at the deadline, ClientGoneError
   * when the client left first.
   */
  async enter(work: Work, opts: { background?: boolean } = {}): Promise<() => void> {
    if (work.signal.aborted) throw new ClientGoneError();
    const background = opts.background === true;
    const queue = background ? this.background : this.queue;
    if (
      background
        ? this.idleForBackground()
        : this.running < this.limits.slots && this.queue.length === 0
    )
      return background ? this.takeBackground() : this.take();
    if (queue.length >= this.limits.maxQueue) {
      this.counts.rejected++;
      throw new BusyError(
        `${this.workClass} busy: ${this.running} running and ${this.queue.length} waiting (TAILSCOPE_ANALYSIS_QUEUE); retry shortly`,
        this.retryAfterSeconds(),
      );
    }
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { admit: resolve };
      const leave = (err: Error, count: 'expired' | 'dropped'): void => {
        const i = queue.indexOf(waiter);
        if (i < 0) return;
        queue.splice(i, 1);
        this.counts[count]++;
        clearTimeout(timer);
        reject(err);
      };
      const onAbort = (): void => {
        leave(new ClientGoneError(), 'dropped');
      };
      const timer = setTimeout(() => {
        work.signal.removeEventListener('abort', onAbort);
        leave(new QueryBudgetError('time', this.budget), 'expired');
      }, remainingMs(work));
      waiter.admit = () => {
        clearTimeout(timer);
        work.signal.removeEventListener('abort', onAbort);
        resolve();
      };
      work.signal.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
    });
    return background ? this.takeBackground(true) : this.take(true);
  }

  private takeBackground(counted = false): () => void {
    if (!counted) this.backgroundRunning++;
    this.counts.admitted++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.counts.finished++;
      this.backgroundRunning--;
      this.admitBackground();
    };
  }

  private take(counted = false): () => void {
    // A waiter's slot was handed over by the releaser (running already counts it).
    if (!counted) this.running++;
    this.counts.admitted++;
    const since = Date.now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.counts.finished++;
      this.heldMs = 0.8 * this.heldMs + 0.2 * (Date.now() - since);
      const next = this.queue.shift();
      if (next) next.admit();
      else {
        this.running--;
        this.admitBackground();
      }
    };
  }

  /** Background work starts only when no person's request runs or waits, one at a time. */
  private idleForBackground(): boolean {
    return this.backgroundRunning < 1 && this.running === 0 && this.queue.length === 0;
  }

  /** Hands the background slot to the next background waiter, when idle. */
  private admitBackground(): void {
    if (!this.idleForBackground()) return;
    const next = this.background.shift();
    if (next) {
      this.backgroundRunning++;
      next.admit();
    }
  }

  /** Seconds until a slot is likely free: the queue ahead over the slots, at the mean hold. */
  private retryAfterSeconds(): number {
    const waves = (this.queue.length + this.running) / this.limits.slots;
    const s = Math.ceil((waves * this.heldMs) / 1000);
    return Math.min(Math.max(1, s), Math.max(1, Math.ceil(this.budget.timeoutSeconds)));
  }
}
