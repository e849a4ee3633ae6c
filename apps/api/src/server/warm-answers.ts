import {
  API_PATHS,
  OVERVIEW_CAUSE_LEAVES,
  STRAGGLER_DIMENSIONS,
  DEFAULT_WHATIF_SEED,
  allDataRange,
  autoWindowSeconds,
  defaultWhatIfPolicy,
  distinctLeaves,
  leafFanoutCap,
  rankOperations,
  type Fanout,
} from '@tailscope/contracts';
import type { FastifyInstance } from 'fastify';
import { admissionGates } from './admit';
import type { AnalysisLimits, QueryBudget } from '../store/engine/budget';

/**
 * Warm answers (issue #24): the dashboard's first questions over "All data", asked by the server
 * itself in the background, so a person who opens the dashboard finds them answered instead of
 * waiting for their first computation (on 2 cores, 1.2M spans: the Overview's fan-outs,
 * incidents, episodes and stragglers, one after another in the one analysis slot, 6-10 s).
 *
 * A pass asks what the dashboard asks on opening each page with its defaults
 * (packages/contracts first-questions.ts, shared with it): the Overview's fan-outs, incidents,
 * episodes and the stragglers of its worst distinct leaves; the Fan-outs page's edges and the
 * worst operation's leaf calls; the Stragglers page's host heatmap and its service's episodes;
 * the critical path of the busiest request root; the What-if page's whole-request answer under
 * its default policy (hedging after the call p95). Each question is an internal request, as a live answer's recomputation is
 * (live-answers.ts): `Cache-Control: no-cache` and the refresh header, so it runs in the analysis
 * gate's background slot, which starts only when no person's request runs or waits. Its answer
 * lands in the answer cache (a person asking the same range gets it exactly) and, over a range
 * that ends near now, in the live answers (a person asking "All data" a little later is served it
 * with its age, and a recomputation behind it).
 *
 * Bounded: a pass starts only when the store's span count or newest span moved since the last
 * one (an idle store costs nothing) and no person's analysis runs or waits; passes are at least
 * `intervalMs` apart and at least ten times the last pass's own duration apart, so the warmer
 * holds at most a tenth of one core on average.
 */

export interface WarmOptions {
  /** Least time between two passes' starts, ms (TAILSCOPE_WARM_S, default 120 s). */
  intervalMs: number;
}

/** Passes are at least this many times their own duration apart (a tenth of a core at most). */
export const WARM_DUTY_FACTOR = 10;

/**
 * `TAILSCOPE_WARM_S`: seconds between the warmer's passes (default 120; 0 turns it off). Throws
 * a message naming the variable on anything but a number >= 0.
 */
export function warmFromEnv(env: Readonly<Record<string, string | undefined>>): WarmOptions | null {
  const raw = env.TAILSCOPE_WARM_S;
  if (raw === undefined || raw === '') return { intervalMs: 120_000 };
  const v = Number(raw);
  if (!Number.isFinite(v) || v < 0)
    throw new Error(`TAILSCOPE_WARM_S must be a number of seconds >= 0, got ${raw}`);
  return v === 0 ? null : { intervalMs: Math.round(v * 1000) };
}

export interface WarmFigures {
  /** Passes finished. */
  passes: number;
  /** When the last pass finished, epoch ms (null before the first). */
  lastPassAtMs: number | null;
  /** How long it took, ms. */
  lastPassMs: number;
  /** Questions it asked, and how many of them failed. */
  lastQuestions: number;
  lastFailed: number;
  /** The failed ones: route and status (or the error). */
  lastFailures: string[];
}

const figures = new WeakMap<object, WarmFigures>();

/** The warmer's figures for `store`'s server (undefined when none runs). */
export function warmFiguresOf(store: object): WarmFigures | undefined {
  return figures.get(store);
}

/** Nanoseconds since the epoch as a decimal string to epoch ms (as the dashboard reads them). */
function nanoToMs(nano: string | null | undefined): number | null {
  if (typeof nano !== 'string' || !/^\d+$/.test(nano)) return null;
  return nano.length > 6
    ? Number(nano.slice(0, -6)) + Number(nano.slice(-6)) / 1e6
    : Number(nano) / 1e6;
}

interface StatsSeen {
  spans: number;
  oldestUnixNano: string | null;
  newestUnixNano: string | null;
  settledUnixNano?: string | null;
}

type Query = Record<string, string | number>;

export interface Warmer {
  /** Runs one pass now (tests); resolves when it is done. */
  pass(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the warmer of `app` (the API over `store`). `token`: a bearer token its internal
 * requests carry when the API has tokens. `log`: where a pass's outcome is written.
 */
export function startWarmer(
  app: FastifyInstance,
  store: { readonly budget: QueryBudget; readonly analysis: AnalysisLimits },
  opts: WarmOptions & { token?: string; log?: (line: string) => void },
): Warmer {
  const fig: WarmFigures = {
    passes: 0,
    lastPassAtMs: null,
    lastPassMs: 0,
    lastQuestions: 0,
    lastFailed: 0,
    lastFailures: [],
  };
  figures.set(store, fig);
  const headers: Record<string, string> = {
    host: 'localhost',
    'cache-control': 'no-cache',
    'x-tailscope-refresh': '1',
    ...(opts.token !== undefined ? { authorization: `Bearer ${opts.token}` } : {}),
  };
  let stopped = false;
  let running: Promise<void> | null = null;
  /** The store's span count and newest span at the last pass: a pass over the same asks nothing. */
  let lastSeen = '';
  let lastStart = 0;

  interface Answer {
    ok: boolean;
    status: number;
    body: string;
  }
  const get = async (path: string, query: Query = {}): Promise<Answer> => {
    const res = await app.inject({ method: 'GET', url: path, query: stringify(query), headers });
    return { ok: res.statusCode === 200, status: res.statusCode, body: res.body };
  };
  const post = async (path: string, body: object): Promise<Answer> => {
    const res = await app.inject({
      method: 'POST',
      url: path,
      payload: JSON.stringify(body),
      headers: { ...headers, 'content-type': 'application/json' },
    });
    return { ok: res.statusCode === 200, status: res.statusCode, body: res.body };
  };

  async function run(): Promise<void> {
    const t0 = Date.now();
    const stats = await get(API_PATHS.stats.path);
    if (!stats.ok) return;
    const s = JSON.parse(stats.body) as StatsSeen;
    const seen = `${String(s.spans)}:${s.newestUnixNano ?? ''}`;
    if (s.spans === 0 || seen === lastSeen) return;
    const range = allDataRange(
      {
        oldestMs: nanoToMs(s.oldestUnixNano),
        newestMs: nanoToMs(s.newestUnixNano),
        settledMs: nanoToMs(s.settledUnixNano),
      },
      Date.now(),
    );
    if (!range) return;
    lastSeen = seen;
    lastStart = t0;
    let asked = 0;
    const failures: string[] = [];
    const ask = async (path: string, query: Query = {}, body?: object): Promise<string | null> => {
      if (stopped) return null;
      asked++;
      try {
        const res = body
          ? await post(path, { ...body, ...range })
          : await get(path, { ...range, ...query });
        if (res.ok) return res.body;
        failures.push(`${path} ${String(res.status)}: ${res.body.slice(0, 200)}`);
      } catch (err) {
        // The next pass asks again.
        failures.push(`${path}: ${String(err)}`);
      }
      return null;
    };
    // The Overview first: a person opens it first, and its questions are the slowest.
    const fanouts = await ask(API_PATHS.fanouts.path);
    await ask(API_PATHS.incidents.path);
    await ask(API_PATHS.episodes.path);
    const ranked = fanouts
      ? rankOperations((JSON.parse(fanouts) as { fanouts: Fanout[] }).fanouts)
      : [];
    const leaf = (op: Fanout): Query => ({
      leafService: op.leafService,
      leafOperation: op.leafOperation,
    });
    for (const op of distinctLeaves(ranked).slice(0, OVERVIEW_CAUSE_LEAVES))
      await ask(API_PATHS.stragglers.path, { ...leaf(op), by: STRAGGLER_DIMENSIONS });
    // The Fan-outs page and the service map, the Stragglers page, the critical path.
    await ask(API_PATHS.edges.path);
    const worst = ranked[0];
    if (worst) {
      const maxFanouts = leafFanoutCap(worst);
      await ask(API_PATHS.leaves.path, {
        ...leaf(worst),
        ...(maxFanouts === undefined ? {} : { maxFanouts }),
      });
      await ask(API_PATHS.hosts.path, {
        ...leaf(worst),
        windowSeconds: autoWindowSeconds(range.to - range.from),
      });
      await ask(API_PATHS.episodes.path, { service: worst.leafService });
    }
    await ask(API_PATHS.criticalPath.path, { band: 'p99' });
    // The What-if page's whole-request answer under its default policy, over the worst operation
    // (apps/web/src/api/whatif.ts fetchRequestWhatIf: the same fields, the full answer).
    // (An operation without a named parent, a root fan-out, has no whole request to replay.)
    if (worst && worst.parentService !== '' && worst.parentOperation !== '')
      await ask(
        API_PATHS.whatif.path,
        {},
        {
          parentService: worst.parentService,
          parentOperation: worst.parentOperation,
          ...leaf(worst),
          policy: defaultWhatIfPolicy(),
          seed: DEFAULT_WHATIF_SEED,
          quality: 'full',
        },
      );
    fig.passes++;
    fig.lastPassAtMs = Date.now();
    fig.lastPassMs = fig.lastPassAtMs - t0;
    fig.lastQuestions = asked;
    fig.lastFailed = failures.length;
    fig.lastFailures = failures;
    opts.log?.(
      `warmed the dashboard's first answers: ${String(asked)} questions in ${(fig.lastPassMs / 1000).toFixed(1)} s` +
        (failures.length > 0 ? ` (failed: ${failures.join('; ')})` : ''),
    );
  }

  const pass = (): Promise<void> => {
    running ??= run()
      .catch((err: unknown) => {
        opts.log?.(`warming the dashboard's first answers failed: ${String(err)}`);
      })
      .finally(() => {
        running = null;
      });
    return running;
  };

  const gate = admissionGates(store).analysis;
  const tick = (): void => {
    if (stopped || running) return;
    const since = Date.now() - lastStart;
    if (lastStart > 0 && since < Math.max(opts.intervalMs, WARM_DUTY_FACTOR * fig.lastPassMs))
      return;
    // A person's analysis first; the background slot would wait for it anyway.
    if (gate.busy) return;
    void pass();
  };
  // Checked every few seconds: the first pass comes as soon as there are spans and no one waits.
  const timer = setInterval(tick, Math.min(5_000, opts.intervalMs));
  timer.unref();
  return {
    pass,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

/** The warmer of a server: its first API token on its requests, its passes in the server's log. */
export function startServerWarmer(
  app: FastifyInstance,
  store: { readonly budget: QueryBudget; readonly analysis: AnalysisLimits },
  warm: WarmOptions,
  apiTokens: readonly string[],
  log: boolean,
): Warmer {
  return startWarmer(app, store, {
    ...warm,
    ...(apiTokens[0] !== undefined ? { token: apiTokens[0] } : {}),
    ...(log
      ? {
          log: (line: string) => {
            console.log(`tailscope: ${line}`);
          },
        }
      : {}),
  });
}

function stringify(q: Query): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(q)) out[k] = String(v);
  return out;
}
