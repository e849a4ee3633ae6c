import { API_PATHS } from '@tailscope/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  LiveAnswers,
  liveAnswersFromEnv,
  liveFamily,
  type LiveAnswerOptions,
} from '../cache/live-answers';
import { parseRange } from '../foundation';
import { answerCostOf, outsideWork, type Work } from '../store/engine/admission';

/**
 * The server's side of live answers (cache/live-answers.ts): before an analysis waits for its
 * slot, a question over a range ending at the live edge is answered from its last slow answer
 * when that is young enough (header `x-tailscope-answer-age-ms`), and a recomputation of the
 * asked range is started behind it, through the same gate as any analysis (an internal request
 * with the asker's credentials and `Cache-Control: no-cache`), one at a time, in the gate's
 * background slot.
 * Answers are kept as sent (onSend), so /leaves' packed bytes are kept like JSON.
 */

/**
 * Routes whose answers depend on their query only (the answer-cached analyses and the critical
 * path), and the
 * what-if, whose answer depends on its body only (its seed included).
 */
const POST_ROUTES = new Set<string>([API_PATHS.whatif.path]);
const LIVE_ROUTES = new Set<string>([
  ...POST_ROUTES,
  API_PATHS.fanouts.path,
  API_PATHS.edges.path,
  API_PATHS.stragglers.path,
  API_PATHS.hosts.path,
  API_PATHS.leaves.path,
  API_PATHS.episodes.path,
  API_PATHS.incidents.path,
  API_PATHS.criticalPath.path,
]);

/** A range is live when it ends within this of now: its spans may still be arriving. */
const LIVE_EDGE_MS = 120_000;

export const ANSWER_AGE_HEADER = 'x-tailscope-answer-age-ms';
/**
 * Marks a recomputation's internal request: it runs in the gate's background slot. A client
 * that sends it waits for that one slot (its queue bounded as the analyses' is).
 */
const REFRESH_HEADER = 'x-tailscope-refresh';

/** Whether `req` is a live answer's recomputation (the gate's background slot). */
export function isRefresh(req: FastifyRequest): boolean {
  return req.headers[REFRESH_HEADER] === '1';
}

const perStore = new WeakMap<object, LiveAnswers | null>();

/** Turns live answers of `store` on with `opts`, or off (null); tests and benches. */
export function setLiveAnswers(store: object, opts: LiveAnswerOptions | null): void {
  perStore.set(store, opts === null ? null : new LiveAnswers(opts));
}

/** The live answers of `store`'s API (from the environment on first use; null when off). */
export function liveAnswersOf(store: object): LiveAnswers | null {
  let live = perStore.get(store);
  if (live === undefined) {
    const opts = liveAnswersFromEnv(process.env);
    perStore.set(store, (live = opts === null ? null : new LiveAnswers(opts)));
  }
  return live;
}

interface Mark {
  family: string;
  fromMs: number;
  toMs: number;
  startedAt: number;
  /** The request's work, once admitted: what its kept answers cost to make. */
  work?: Work;
}
const marks = new WeakMap<FastifyRequest, Mark>();

function wantsFresh(req: FastifyRequest): boolean {
  const cc = req.headers['cache-control'];
  const pragma = req.headers.pragma;
  return (
    (typeof cc === 'string' && /(^|,)\s*no-cache\s*(,|$)/i.test(cc)) ||
    (typeof pragma === 'string' && /no-cache/i.test(pragma))
  );
}

/**
 * Before the gate: answers `req` from a kept live answer (returning the sent reply), or marks it
 * so its answer is kept when sent. Undefined: the handler computes.
 */
export function serveLive(
  req: FastifyRequest,
  reply: FastifyReply,
  store: object,
  now = Date.now(),
): FastifyReply | undefined {
  const route = req.routeOptions.url;
  if (route === undefined || !LIVE_ROUTES.has(route)) return undefined;
  if (req.method !== (POST_ROUTES.has(route) ? 'POST' : 'GET')) return undefined;
  const live = liveAnswersOf(store);
  if (!live) return undefined;
  const asks = req.method === 'POST' ? req.body : req.query;
  if (typeof asks !== 'object' || asks === null || Array.isArray(asks)) return undefined;
  const query = asks as Record<string, unknown>;
  const text = (v: unknown): string | undefined =>
    typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
  let asked: { fromMs: number; toMs: number };
  try {
    asked = parseRange({ from: text(query.from), to: text(query.to) }, now);
  } catch {
    // The handler answers the 400.
    return undefined;
  }
  if (asked.toMs < now - LIVE_EDGE_MS) return undefined;
  const family = liveFamily(route, query);
  if (!wantsFresh(req)) {
    const hit = live.lookup(family, asked, now);
    if (hit) {
      if (hit.refresh)
        askRefresh(live, family, () => {
          refresh(req.server, req, live, family);
        });
      return reply
        .header('content-type', hit.answer.contentType)
        .header(ANSWER_AGE_HEADER, String(Math.round(hit.ageMs)))
        .send(hit.answer.payload);
    }
  }
  marks.set(req, { family, fromMs: asked.fromMs, toMs: asked.toMs, startedAt: now });
  return undefined;
}

/** The handler of a marked request starts now (after its wait at the gate), as `work`. */
export function liveStarted(req: FastifyRequest, work?: Work): void {
  const m = marks.get(req);
  if (!m) return;
  m.startedAt = Date.now();
  if (work) m.work = work;
}

/**
 * Recomputations waiting for the one running, oldest ask first (a family asked again waits with
 * its newest range). One runs at a time, in the gate's background slot; until stop 45 a served
 * answer whose refresh found another running was never refreshed, and at 10M spans (a refresh:
 * 2-25 s) most families a person visited aged out of their range instead.
 */
const waiting = new WeakMap<LiveAnswers, Map<string, () => void>>();
/** Families waiting at most: the oldest asks beyond it are dropped (asked again, they queue). */
const MAX_WAITING = 32;

function askRefresh(live: LiveAnswers, family: string, start: () => void): void {
  if (live.refreshesRunning() === 0) {
    start();
    return;
  }
  let q = waiting.get(live);
  if (!q) waiting.set(live, (q = new Map<string, () => void>()));
  q.delete(family);
  q.set(family, start);
  for (const k of q.keys()) {
    if (q.size <= MAX_WAITING) break;
    q.delete(k);
  }
}

/** Starts the oldest waiting recomputation whose family still wants one. */
function nextRefresh(live: LiveAnswers): void {
  const q = waiting.get(live);
  if (!q) return;
  for (const [family, start] of q) {
    q.delete(family);
    if (live.wantsRefresh(family, Date.now())) {
      start();
      return;
    }
  }
}

/** The asked range computed again behind a served answer, as an internal request. */
function refresh(
  app: FastifyInstance,
  req: FastifyRequest,
  live: LiveAnswers,
  family: string,
): void {
  if (!live.startRefresh(family)) return;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (typeof v === 'string' && k !== 'content-length') headers[k] = v;
  headers['cache-control'] = 'no-cache';
  headers[REFRESH_HEADER] = '1';
  outsideWork(() => {
    app
      .inject({
        method: req.method === 'POST' ? 'POST' : 'GET',
        url: req.url,
        headers,
        ...(req.method === 'POST' ? { payload: JSON.stringify(req.body) } : {}),
      })
      .catch((err: unknown) => {
        req.log.warn({ err }, 'live answer refresh failed');
      })
      .finally(() => {
        live.endRefresh(family);
        nextRefresh(live);
      });
  });
}

/** Keeps the answers of marked requests as they are sent (one hook on the API's app). */
export function keepLiveAnswers(app: FastifyInstance, store: object): void {
  app.addHook('onSend', async (req, reply, payload) => {
    const m = marks.get(req);
    const live = m ? liveAnswersOf(store) : null;
    if (
      m &&
      live &&
      reply.statusCode === 200 &&
      (typeof payload === 'string' || Buffer.isBuffer(payload))
    ) {
      const contentType = reply.getHeader('content-type');
      live.keep(
        m.family,
        {
          payload,
          contentType: typeof contentType === 'string' ? contentType : 'application/json',
          fromMs: m.fromMs,
          toMs: m.toMs,
          computedAt: Date.now(),
        },
        // What asking again would cost: this handler's time, or more when it was served an
        // answer another request computed (the answer cache; bench:pages found the Overview's
        // episodes read from it in ms, not kept, and computed again on the next visit).
        Math.max(Date.now() - m.startedAt, m.work ? answerCostOf(m.work) : 0),
      );
    }
    return payload;
  });
}
