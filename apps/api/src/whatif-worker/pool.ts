import type { FastifyInstance } from 'fastify';
import { Piscina } from 'piscina';
import { badRequest } from '../foundation';
import { BusyError, ClientGoneError, currentWork, remainingMs } from '../store/engine/admission';
import { QueryBudgetError, type AnalysisLimits, type QueryBudget } from '../store/engine/budget';
import type { AnalysisJob, AnalysisResults } from './jobs';
import type { JobReply } from './worker';

/**
 * Long analyses (what-if replays, straggler attribution) run on worker threads so a request's
 * analysis never blocks the event loop that serves OTLP ingest and every other request. Each
 * job runs under the query budget: past its time the worker is terminated (503), past its
 * memory (the worker's heap limit) it dies alone (413); the process keeps serving. Run for a
 * request (admission.ts), a job gets what is left of the request's budget (its wait for a slot
 * counted) and stops when the client goes away. The threads run at a lower priority than the
 * event loop that serves ingest (entry.mjs).
 */
export interface AnalysisPool {
  /** Runs a job; `cancel` (the client went away) stops it and rejects with ClientGoneError. */
  run<K extends AnalysisJob['kind']>(
    job: Extract<AnalysisJob, { kind: K }>,
    cancel?: AbortSignal,
  ): Promise<AnalysisResults[K]>;
  /** Jobs handed to a thread or its queue, finished with an answer, and stopped (client, time). */
  stats(): { started: number; completed: number; aborted: number; threads: number };
  close(): Promise<void>;
}

function createAnalysisPool(budget: QueryBudget, limits: AnalysisLimits): AnalysisPool {
  const counts = { started: 0, completed: 0, aborted: 0 };
  // The admission gate (admission.ts) lets `threads` analyses run at once, so this queue holds
  // at most what they hand over; its cap is a backstop for jobs run outside a request.
  const maxQueue = Math.max(1, limits.maxQueue);
  const pool = new Piscina({
    filename: new URL('./entry.mjs', import.meta.url).href,
    minThreads: 0,
    maxThreads: limits.threads,
    maxQueue,
    idleTimeout: 60_000,
    resourceLimits: {
      maxOldGenerationSizeMb: Math.max(64, Math.floor(budget.maxMemoryBytes / 1024 ** 2)),
    },
  });
  const requests = requestPool(budget, maxQueue);
  return {
    async run(job, asked) {
      const work = currentWork();
      const cancel = asked ?? work?.signal;
      const leftMs = work ? remainingMs(work) : budget.timeoutSeconds * 1000;
      if (leftMs <= 0) throw new QueryBudgetError('time', budget);
      const timeout = AbortSignal.timeout(leftMs);
      // The cached whole-request and capacity jobs run on their own thread; a client gone does
      // not abort them (aborting a running task terminates its thread, and the caches with it):
      // a preview is short (tens of ms), and the answer is dropped.
      const cached = job.kind === 'whatif-request-columns' || job.kind === 'capacity';
      const signal = cancel && !cached ? AbortSignal.any([timeout, cancel]) : timeout;
      let reply: JobReply;
      try {
        if (cancel?.aborted) throw new ClientGoneError();
        counts.started++;
        reply = (await (cached ? requests : pool).run(job, { signal })) as JobReply;
        counts.completed++;
        if (cancel?.aborted) throw new ClientGoneError();
      } catch (err) {
        if (signal.aborted) counts.aborted++;
        if (cancel?.aborted) throw new ClientGoneError();
        throw poolError(err, budget, timeout);
      }
      if (!reply.ok) {
        // A policy the analysis refuses names its field: the caller's mistake, a 400.
        if (reply.error.field !== undefined) throw badRequest(reply.error.message);
        throw Object.assign(new Error(reply.error.message), { name: reply.error.name });
      }
      return reply.result as AnalysisResults[typeof job.kind];
    },
    stats: () => ({ ...counts, threads: limits.threads }),
    close: async () => {
      await Promise.all([pool.destroy(), requests.destroy()]);
    },
  };
}

/** How long the whole-request thread (and its cache) outlives its last job, ms. */
const REQUEST_THREAD_IDLE_MS = 5 * 60_000;

/**
 * One thread for the cached whole-request jobs (request-cache.ts) and capacity jobs (their fit
 * cache, capacity-job.ts): every answer for a range and edge finds the trees, plan or fit the
 * previous one left, with no affinity bookkeeping. Kept apart
 * from the pool above so perf's orchestration of the other jobs is not touched.
 */
function requestPool(budget: QueryBudget, maxQueue: number): Piscina {
  return new Piscina({
    filename: new URL('./entry.mjs', import.meta.url).href,
    minThreads: 0,
    maxThreads: 1,
    maxQueue,
    idleTimeout: REQUEST_THREAD_IDLE_MS,
    resourceLimits: {
      maxOldGenerationSizeMb: Math.max(64, Math.floor(budget.maxMemoryBytes / 1024 ** 2)),
    },
  });
}

function poolError(err: unknown, budget: QueryBudget, signal: AbortSignal): Error {
  if (signal.aborted) return new QueryBudgetError('time', budget);
  const e = err as { code?: unknown; message?: unknown };
  if (e.code === 'ERR_WORKER_OUT_OF_MEMORY') return new QueryBudgetError('memory', budget);
  if (typeof e.message === 'string' && /queue is at limit/i.test(e.message))
    return new BusyError(
      'analysis busy: too many analyses waiting (TAILSCOPE_ANALYSIS_QUEUE); retry shortly',
      1,
    );
  return err instanceof Error ? err : new Error(String(err));
}

const pools = new WeakMap<object, AnalysisPool>();

/**
 * The pool of one API instance (every route plugin of it shares the threads), closed with it.
 * Keyed by the store, which an API instance has exactly one of.
 */
export function analysisPool(
  app: FastifyInstance,
  store: { readonly budget: QueryBudget; readonly analysis: AnalysisLimits },
): AnalysisPool {
  let pool = pools.get(store);
  if (!pool) {
    const created = createAnalysisPool(store.budget, store.analysis);
    pools.set(store, created);
    app.addHook('onClose', async () => {
      pools.delete(store);
      await created.close();
    });
    pool = created;
  }
  return pool;
}
