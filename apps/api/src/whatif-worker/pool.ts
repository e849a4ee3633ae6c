import { availableParallelism } from 'node:os';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Piscina } from 'piscina';
import { badRequest, HttpError } from '../server/errors';
import { QueryBudgetError, type QueryBudget } from '../store/budget';
import type { AnalysisJob, AnalysisResults } from './jobs';
import type { JobReply } from './worker';

/**
 * Long analyses (what-if replays, straggler attribution) run on worker threads so a request's
 * analysis never blocks the event loop that serves OTLP ingest and every other request. Each
 * job runs under the query budget: past its time the worker is terminated (503), past its
 * memory (the worker's heap limit) it dies alone (413); the process keeps serving.
 */
export interface AnalysisPool {
  /** Runs a job; `cancel` (the client went away) stops it and rejects with ClientGoneError. */
  run<K extends AnalysisJob['kind']>(
    job: Extract<AnalysisJob, { kind: K }>,
    cancel?: AbortSignal,
  ): Promise<AnalysisResults[K]>;
  close(): Promise<void>;
}

/** Jobs waiting for a thread beyond this answer 503 at once rather than queue without bound. */
const MAX_QUEUE = 16;

function createAnalysisPool(budget: QueryBudget): AnalysisPool {
  const pool = new Piscina({
    filename: new URL('./entry.mjs', import.meta.url).href,
    minThreads: 0,
    maxThreads: Math.max(1, Math.min(2, availableParallelism())),
    maxQueue: MAX_QUEUE,
    idleTimeout: 60_000,
    resourceLimits: {
      maxOldGenerationSizeMb: Math.max(64, Math.floor(budget.maxMemoryBytes / 1024 ** 2)),
    },
  });
  const requests = requestPool(budget);
  return {
    async run(job, cancel) {
      const timeout = AbortSignal.timeout(budget.timeoutSeconds * 1000);
      // The cached whole-request jobs run on their own thread; a client gone does not abort
      // them (aborting a running task terminates its thread, and the cache with it): they are
      // short (a preview: tens of ms), and the answer is dropped.
      const cached = job.kind === 'whatif-request-columns';
      const signal = cancel && !cached ? AbortSignal.any([timeout, cancel]) : timeout;
      let reply: JobReply;
      try {
        if (cancel?.aborted) throw new ClientGoneError();
        reply = (await (cached ? requests : pool).run(job, { signal })) as JobReply;
        if (cancel?.aborted) throw new ClientGoneError();
      } catch (err) {
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
    close: async () => {
      await Promise.all([pool.destroy(), requests.destroy()]);
    },
  };
}

/** How long the whole-request thread (and its cache) outlives its last job, ms. */
const REQUEST_THREAD_IDLE_MS = 5 * 60_000;

/**
 * One thread for the cached whole-request jobs (request-cache.ts): every answer for a range and
 * edge finds the trees and plan the previous one left, with no affinity bookkeeping. Kept apart
 * from the pool above so perf's orchestration of the other jobs is not touched.
 */
function requestPool(budget: QueryBudget): Piscina {
  return new Piscina({
    filename: new URL('./entry.mjs', import.meta.url).href,
    minThreads: 0,
    maxThreads: 1,
    maxQueue: MAX_QUEUE,
    idleTimeout: REQUEST_THREAD_IDLE_MS,
    resourceLimits: {
      maxOldGenerationSizeMb: Math.max(64, Math.floor(budget.maxMemoryBytes / 1024 ** 2)),
    },
  });
}

/**
 * The client closed the connection before its answer: nothing to answer and nothing wrong
 * here (499, nginx's "client closed request"; written to a closed socket, logged at info).
 */
class ClientGoneError extends HttpError {
  constructor() {
    super(499, 'client closed the request');
    this.name = 'ClientGoneError';
  }
}

/** Aborts when the client goes away before the reply is written, so its analysis stops. */
export function clientGone(reply: FastifyReply): AbortSignal {
  const ac = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) ac.abort();
  });
  return ac.signal;
}

function poolError(err: unknown, budget: QueryBudget, signal: AbortSignal): Error {
  if (signal.aborted) return new QueryBudgetError('time', budget);
  const e = err as { code?: unknown; message?: unknown };
  if (e.code === 'ERR_WORKER_OUT_OF_MEMORY') return new QueryBudgetError('memory', budget);
  if (typeof e.message === 'string' && /queue is at limit/i.test(e.message))
    return new HttpError(503, 'analysis busy: too many analyses waiting; retry shortly');
  return err instanceof Error ? err : new Error(String(err));
}

const pools = new WeakMap<object, AnalysisPool>();

/**
 * The pool of one API instance (every route plugin of it shares the threads), closed with it.
 * Keyed by the store, which an API instance has exactly one of.
 */
export function analysisPool(
  app: FastifyInstance,
  store: { readonly budget: QueryBudget },
): AnalysisPool {
  let pool = pools.get(store);
  if (!pool) {
    const created = createAnalysisPool(store.budget);
    pools.set(store, created);
    app.addHook('onClose', async () => {
      pools.delete(store);
      await created.close();
    });
    pool = created;
  }
  return pool;
}
