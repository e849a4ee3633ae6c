// npm run bench:pages — every dashboard route opened in real Chromium against a `tailscope serve`
// child process, while OTLP ingest runs at a steady rate (issue #24). Prints each page's time
// from navigation to its last /api/ answer (cold: a new browser context; second visit: the same
// URL again; in-app: moving between pages of one session, as a click does) and every answer's
// time. Not a test: figures, no assertions.
//
// env: PAGES_SCENARIO (microservices), PAGES_REQUESTS (20000: the preset's ~1.2M spans),
//   PAGES_BIG=1 (10M spans of bigtable-multiget instead), PAGES_INGEST_RATE (5000 spans/s; 0:
//   none), PAGES_INGEST_SCENARIO (what the ingest sends; default the stored scenario),
//   PAGES_TRACE_SPANS (10000), PAGES_ROUTES (comma list, default every route),
//   DATA_DIR (default a temp dir per scenario and size; loaded fresh each run, since the spans are
//   stamped just before now so the server's background materializers see them),
//   PAGES_RANGE=loaded (the pages over the loaded spans' closed range, not "all data" up to now),
//   PAGES_COMPARE=1 (measure twice on the same store: answer cache off, then on),
//   PAGES_BEFORE_DIST (with PAGES_COMPARE: a copy of an older apps/web/dist served in the first
//   pass; apps/web/dist is left as the newer build at the end),
//   PAGES_LIMIT_MS (60000: a page still waiting on /api/ then is reported as timed out),
//   PAGES_WARM_WAIT=1 (before measuring, wait until the server has warmed the dashboard's first
//   answers once, TAILSCOPE_WARM_S: a person meeting a server that has been running; default: a
//   server just started, its first warm pass racing the first page),
//   PAGES_VERBOSE=1 (every answer's full path, time and kept age under each page),
//   CHROMIUM_PATH (/usr/bin/chromium). The dashboard must be built: npm run build:web.
import { cpSync, existsSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createGenerator, presetSpec } from '@tailscope/tracegen';
import {
  materializeCallBuckets,
  materializeFanouts,
  materializeOpenBuckets,
  materializeOpenFanouts,
  migrate,
  openStore,
} from '@tailscope/api';
import { freePort, procStats, startServer } from './analysis-support';
import { insertGenerated } from './generated-store';
import {
  CHROMIUM,
  coldPage,
  describeAnswers,
  launch,
  listAnswers,
  navigateInApp,
  timePage,
  type PageTime,
} from './pages-browser';
import { bigTrace, sendBigTrace, startSteadyIngest } from './pages-ingest';

const BIG = process.env.PAGES_BIG === '1';
const SCENARIO = process.env.PAGES_SCENARIO ?? (BIG ? 'bigtable-multiget' : 'microservices');
const INGEST_RATE = Number(process.env.PAGES_INGEST_RATE ?? 5000);
// The watched system keeps sending its own traffic. (Until stop 45 the ingest was always
// `microservices`: beside 10M stored spans of bigtable-multiget its operations outranked the
// stored ones within a minute, so the pages asked of other operations than the server had warmed.)
const INGEST_SCENARIO = process.env.PAGES_INGEST_SCENARIO ?? SCENARIO;
const VERBOSE = process.env.PAGES_VERBOSE === '1';
const TRACE_SPANS = Number(process.env.PAGES_TRACE_SPANS ?? 10_000);
const ROUTES = (
  process.env.PAGES_ROUTES ?? '/,/fanouts,/stragglers,/map,/whatif,/criticalpath,/traces'
)
  .split(',')
  .filter((r) => r !== '');
const DIST = resolve(import.meta.dirname, '../../apps/web/dist');
const WEB_DIST = join(DIST, 'index.html');

/** Serves the dashboard build in `dir` (copied over apps/web/dist; no server is running). */
function swapDist(dir: string): void {
  rmSync(DIST, { recursive: true, force: true });
  cpSync(dir, DIST, { recursive: true });
}

/** Requests of the scenario: PAGES_REQUESTS, else ~10M spans (big) or the preset's 20,000. */
function requestsOf(spec: ReturnType<typeof presetSpec>): number {
  if (process.env.PAGES_REQUESTS !== undefined) return Number(process.env.PAGES_REQUESTS);
  if (!BIG) return 20_000;
  const probe = createGenerator(spec, { requests: 1000, seed: 1 });
  return Math.floor((10_000_000 * 1000) / probe.expectedSpans);
}

/**
 * Loads the scenario into a fresh `dataDir`, its last span a minute before now, and builds what
 * the server's background materializers build once ingest settles (stored fan-outs, episode
 * series), so the pages meet the store as a running server keeps it.
 */
async function load(dataDir: string): Promise<{ spans: number; fromMs: number; toMs: number }> {
  const spec = presetSpec(SCENARIO);
  const requests = requestsOf(spec);
  const probe = createGenerator(spec, { requests, seed: 1 });
  const start = Date.now() - probe.truth.durationMs - 60_000;
  const gen = createGenerator(spec, { requests, seed: 1, start });
  rmSync(dataDir, { recursive: true, force: true });
  const store = openStore({ dataDir });
  try {
    await migrate(store);
    console.log(
      `loading ${SCENARIO}: ${requests.toLocaleString()} requests, ~${gen.expectedSpans.toLocaleString()} spans`,
    );
    let t = performance.now();
    const spans = await insertGenerated(store, gen, 'bench-pages');
    console.log(
      `loaded ${spans.toLocaleString()} spans in ${((performance.now() - t) / 1000).toFixed(0)} s`,
    );
    t = performance.now();
    const nowNs = BigInt(Date.now()) * 1_000_000n;
    const range = { fromNs: BigInt(start - 3_600_000) * 1_000_000n, toNs: nowNs, nowNs };
    const f = await materializeFanouts(store, range);
    const b = await materializeCallBuckets(store, range);
    await materializeOpenBuckets(store, { nowNs });
    await materializeOpenFanouts(store, { nowNs });
    console.log(
      `materialized ${f.chunks} fan-out chunks, ${b.chunks} episode chunks in ${((performance.now() - t) / 1000).toFixed(0)} s`,
    );
    return { spans, fromMs: start, toMs: start + gen.truth.durationMs + 30_000 };
  } finally {
    await store.close();
  }
}

const fmt = (p: PageTime): string =>
  `${Number.isNaN(p.ms) ? '-' : `${(p.ms / 1000).toFixed(2)} s`}${p.timedOut ? ' (timed out)' : ''}`;

interface Row {
  route: string;
  cold: PageTime;
  second: PageTime;
  inApp?: PageTime;
}

async function measure(base: string, traceId: string, query: string): Promise<Row[]> {
  const url = (route: string) =>
    `${base}${route}${query !== '' && !route.startsWith('/traces/') ? `?${query}` : ''}`;
  const browser = await launch();
  const rows: Row[] = [];
  try {
    for (const route of [...ROUTES, `/traces/${traceId}`]) {
      const { ctx, page } = await coldPage(browser);
      const cold = await timePage(page, () => page.goto(url(route)));
      const second = await timePage(page, () => page.goto(url(route)));
      await ctx.close();
      rows.push({ route, cold, second });
      console.log(`${route.padEnd(14)} cold ${fmt(cold)}  [${describeAnswers(cold.answers)}]`);
      if (VERBOSE) console.log(listAnswers(cold.answers));
      console.log(`${''.padEnd(14)} again ${fmt(second)}  [${describeAnswers(second.answers)}]`);
      if (VERBOSE) console.log(listAnswers(second.answers));
    }
    // One session moving through every page, as a person clicks the navigation.
    const { ctx, page } = await coldPage(browser);
    const first = ROUTES[0] ?? '/';
    await timePage(page, () => page.goto(url(first)));
    for (const route of [...ROUTES.slice(1), first]) {
      const t = await timePage(page, () => navigateInApp(page, url(route).slice(base.length)));
      const row = rows.find((r) => r.route === route && r.inApp === undefined);
      if (row) row.inApp = t;
      console.log(`${route.padEnd(14)} in-app ${fmt(t)}  [${describeAnswers(t.answers)}]`);
      if (VERBOSE) console.log(listAnswers(t.answers));
    }
    await ctx.close();
  } finally {
    await browser.close();
  }
  return rows;
}

function table(rows: readonly Row[]): void {
  console.log('\n| page | cold | second visit | in-app | slowest answers cold (ms) |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const r of rows)
    console.log(
      `| ${r.route.replace(/[0-9a-f]{32}/, '<10k-span trace>')} | ${fmt(r.cold)} | ${fmt(r.second)} | ${r.inApp ? fmt(r.inApp) : '-'} | ${describeAnswers(r.cold.answers, 4)} |`,
    );
}

/** Waits until the store's newest span is within 5 s of now (ingest has landed), at most 60 s. */
async function warmUp(base: string, ingest: { sent(): number }): Promise<void> {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    if (ingest.sent() > 0) {
      const res = await fetch(`${base}/api/v1/stats`, { headers: { 'cache-control': 'no-cache' } });
      const stats = (await res.json()) as { newestUnixNano?: string | null };
      const newestMs = Number(BigInt(stats.newestUnixNano ?? '0') / 1_000_000n);
      if (newestMs > Date.now() - 5_000) return;
    }
    await new Promise((ok) => setTimeout(ok, 500));
  }
  console.log('ingest had not reached the store after 60 s; measuring anyway');
}

/** Waits until the server has warmed the dashboard's first answers once, at most 5 minutes. */
async function warmed(base: string): Promise<void> {
  const t = performance.now();
  const until = Date.now() + 300_000;
  while (Date.now() < until) {
    const res = await fetch(`${base}/api/v1/stats`);
    const stats = (await res.json()) as { warmedUnixMs?: number | null };
    if (stats.warmedUnixMs === undefined) {
      console.log('the server does not warm answers (TAILSCOPE_WARM_S=0); measuring anyway');
      return;
    }
    if (stats.warmedUnixMs !== null) {
      console.log(
        `the server warmed the first answers ${((performance.now() - t) / 1000).toFixed(0)} s after ingest landed`,
      );
      return;
    }
    await new Promise((ok) => setTimeout(ok, 500));
  }
  console.log('no warm pass after 5 minutes; measuring anyway');
}

/** One server on the loaded store, measured under ingest; `env` is set for its process. */
async function run(
  dataDir: string,
  spans: number,
  query: string,
  mode: { name: string; env: Record<string, string | undefined>; dist?: string },
): Promise<void> {
  // Empty means unset to the server's settings.
  for (const [k, v] of Object.entries(mode.env)) process.env[k] = v ?? '';
  if (mode.dist !== undefined) swapDist(mode.dist);
  const port = await freePort();
  const otlpPort = await freePort();
  // The warmer's passes (what it asked, how long, what failed) beside the figures.
  const server = await startServer(port, dataDir, otlpPort, (line) => {
    if (line.includes('warm')) console.log(`  server: ${line.slice(0, 600)}`);
  });
  const pid = server.pid ?? 0;
  const base = `http://127.0.0.1:${port}`;
  const otlp = `http://127.0.0.1:${otlpPort}/v1/traces`;
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  try {
    // Half a minute old: after every chunk the load stored (they ended over a minute before it
    // ran), as a trace just finished. Two minutes old, it fell inside the newest stored chunk's
    // edge margin whenever the load ended just after a chunk boundary, and that chunk went back
    // to live until the server rebuilt it: at 10M spans (6M in the chunk) every analysis over it
    // then failed with 413 at the 2 GiB budget for ~3 minutes (a late trace does this on a
    // real server too: docs/pages.md, "Late spans in a dense chunk").
    const big = bigTrace(TRACE_SPANS, BigInt(Date.now() - 30_000) * 1_000_000n);
    await sendBigTrace(base, otlp, big, TRACE_SPANS);
    const ingest = INGEST_RATE > 0 ? startSteadyIngest(otlp, INGEST_RATE, INGEST_SCENARIO) : null;
    // The loaded spans end a minute or two before now; the first ingested ones move "All data"'s
    // end to now at once. Measured from then on, as a person meets a store that has been
    // receiving (else the first page's range is 10% shorter than the next one's and the pages
    // after it cannot be served the answers it computed).
    if (ingest) await warmUp(base, ingest);
    if (process.env.PAGES_WARM_WAIT === '1') await warmed(base);
    const t0 = performance.now();
    const cpu0 = procStats(pid).cpuMs;
    console.log(
      `\n== ${mode.name}: server pid ${pid}; ${spans.toLocaleString()} spans of ${SCENARIO}; ingest ${INGEST_RATE} spans/s of ${INGEST_SCENARIO}; range ${query === '' ? 'all data' : query}; load average ${load()}\n`,
    );
    let rows: Row[];
    try {
      rows = await measure(base, big.traceId, query);
    } finally {
      await ingest?.stop();
    }
    const s = (performance.now() - t0) / 1000;
    console.log(`\n${mode.name}:`);
    table(rows);
    const sent = ingest?.sent() ?? 0;
    console.log(
      `\nover ${s.toFixed(0)} s: ingest sent ${sent.toLocaleString()} spans (${(sent / s).toFixed(0)}/s, ${ingest?.refused() ?? 0} requests refused); server CPU ${((procStats(pid).cpuMs - cpu0) / 1000).toFixed(0)} s, RSS ${procStats(pid).rss.toFixed(0)} MiB; load average ${load()}`,
    );
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
}

async function main(): Promise<void> {
  if (!existsSync(CHROMIUM) || !existsSync(WEB_DIST))
    throw new Error(`needs ${CHROMIUM} and a built dashboard (npm run build:web)`);
  const dataDir = resolve(
    process.env.DATA_DIR ?? join(tmpdir(), `tailscope-bench-pages-${SCENARIO}`),
  );
  const loaded = await load(dataDir);
  // PAGES_RANGE=loaded: the pages over the loaded spans' own range (a closed window, as a
  // person looking at an incident has it) instead of the default "all data" up to now.
  const query =
    process.env.PAGES_RANGE === 'loaded' ? `from=${loaded.fromMs}&to=${loaded.toMs}` : '';
  // PAGES_COMPARE=1: the same store and conditions, the answer cache off then on; with
  // PAGES_BEFORE_DIST (a copy of an older apps/web/dist) the first pass serves that dashboard.
  const keep = resolve(tmpdir(), 'tailscope-bench-pages-dist-after');
  const beforeDist = process.env.PAGES_BEFORE_DIST;
  const before = beforeDist !== undefined ? { dist: beforeDist } : {};
  const after = beforeDist !== undefined ? { dist: keep } : {};
  if (beforeDist !== undefined) {
    rmSync(keep, { recursive: true, force: true });
    cpSync(DIST, keep, { recursive: true });
  }
  const modes =
    process.env.PAGES_COMPARE === '1'
      ? [
          { name: 'answer cache off', env: { TAILSCOPE_ANSWER_CACHE_MB: '0' }, ...before },
          { name: 'answer cache on', env: { TAILSCOPE_ANSWER_CACHE_MB: undefined }, ...after },
        ]
      : [{ name: 'as configured', env: {} }];
  for (const mode of modes) await run(dataDir, loaded.spans, query, mode);
}

await main();
