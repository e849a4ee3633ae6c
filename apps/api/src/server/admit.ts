import { API_PATHS } from '@tailscope/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AdmissionGate, runAsWork, type WorkClass } from '../store/engine/admission';
import type { AnalysisLimits, QueryBudget } from '../store/engine/budget';
import { clientGone } from '../foundation';
import { isRefresh, liveStarted, serveLive } from './live-answers';

/**
 * Which gate a route waits at (store/admission.ts). The cheap answers a person waits on while
 * analyses run (the overview's stats, a trace, a trace search) have their own; every other
 * /api/v1 route is an analysis. Health, metrics, the session and static files pass ungated.
 */
const INTERACTIVE = new Set<string>([
  API_PATHS.stats.path,
  API_PATHS.traces.path,
  API_PATHS.trace.path,
  API_PATHS.span.path,
]);
const UNGATED = new Set<string>([API_PATHS.session.path, API_PATHS.openapi.path]);

export function workClassOf(url: string): WorkClass | undefined {
  if (INTERACTIVE.has(url)) return 'interactive';
  if (UNGATED.has(url) || !url.startsWith('/api/v1/')) return undefined;
  return 'analysis';
}

/** Cheap answers running at once and waiting at most: short reads, so a small queue drains fast. */
const INTERACTIVE_LIMITS = { slots: 4, maxQueue: 64 };

export interface Gates {
  analysis: AdmissionGate;
  interactive: AdmissionGate;
}

const gates = new WeakMap<object, Gates>();

/** The gates of one store (one API instance): shared by its routes, read by tests and metrics. */
export function admissionGates(store: {
  readonly budget: QueryBudget;
  readonly analysis: AnalysisLimits;
}): Gates {
  let g = gates.get(store);
  if (!g) {
    g = {
      analysis: new AdmissionGate(
        'analysis',
        { slots: store.analysis.threads, maxQueue: store.analysis.maxQueue },
        store.budget,
      ),
      interactive: new AdmissionGate('interactive', INTERACTIVE_LIMITS, store.budget),
    };
    gates.set(store, g);
  }
  return g;
}

type Handler<This> = (this: This, req: FastifyRequest, reply: FastifyReply) => unknown;

/**
 * `handler` behind its class's gate: it starts when a slot is free, with the request's
 * deadline counted from its arrival (reply.elapsedTime), and runs as that work, so its store
 * queries and pool jobs carry the class, the deadline and the client's cancellation.
 */
export function admitted<This>(
  handler: Handler<This>,
  workClass: WorkClass,
  store: { readonly budget: QueryBudget; readonly analysis: AnalysisLimits },
): Handler<This> {
  const gate = admissionGates(store)[workClass];
  return async function (this: This, req, reply) {
    // A question over the live edge with a young kept answer never waits (live-answers.ts).
    if (workClass === 'analysis') {
      const served = serveLive(req, reply, store);
      if (served) return served;
    }
    const refresh = isRefresh(req);
    const work = {
      workClass,
      signal: clientGone(reply),
      deadlineMs: Math.round(Date.now() - reply.elapsedTime + store.budget.timeoutSeconds * 1000),
      // Background work gives way to a person's analysis and to the cheap answers a page waits
      // on (a trace, a search): bench:pages found the 10k-span trace page at 1.1 s, not 0.3 s,
      // while a warm pass ran.
      ...(refresh
        ? { deferred: true, yieldTo: () => gate.busy || admissionGates(store).interactive.busy }
        : {}),
    };
    // A live answer's recomputation runs in the gate's background slot (live-answers.ts).
    const release = await gate.enter(work, { background: refresh });
    liveStarted(req, work);
    try {
      return await runAsWork(work, () => handler.call(this, req, reply));
    } finally {
      release();
    }
  };
}
