// npm run bench:traces — trace search, the aggregated critical path and a 10,000-span trace
// opened in the dashboard (issue #13), against a `tailscope serve` child process on tracegen
// spans in the embedded engine. Prints wall time and the server's CPU time per request, and
// the browser's time to the waterfall and to the critical-path table. Not a test.
//
// env: SPANS (default 10000000), SCENARIO (bigtable-multiget), RUNS (3), DATA_DIR (default: the
// directory bench:analysis uses for the same SCENARIO and SPANS, so its load is reused),
// TRACE_SPANS (10000), SEARCH_SERVICE (tablet-server: a callee, for the span-filter search),
// CHROMIUM_PATH (/usr/bin/chromium; the page timing is skipped without it).
// The dashboard must be built (npm run build -w apps/web); the page timing is skipped otherwise.
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
// Already in the repository for apps/web's browser tests; the bench uses it the same way.
import { chromium } from 'playwright-core';
import { createGenerator, presetSpec } from '@tailscope/tracegen';
import { freePort, procStats, startServer } from './analysis-support';
import { loadGenerated } from './generated-store';
import {
  API_PATHS,
  apiClient,
  endpointUrl,
  parseAnswer,
  type EndpointQuery,
} from '@tailscope/contracts';

const SPANS = Number(process.env.SPANS ?? 10_000_000);
const SCENARIO = process.env.SCENARIO ?? 'bigtable-multiget';
const RUNS = Number(process.env.RUNS ?? 3);
const TRACE_SPANS = Number(process.env.TRACE_SPANS ?? 10_000);
/** A service below the roots for the span-filter search (the scenario's callee). */
const SEARCH_SERVICE = process.env.SEARCH_SERVICE ?? 'tablet-server';
const DATA_DIR = resolve(
  process.env.DATA_DIR ?? join(tmpdir(), `tailscope-bench-analysis-${SCENARIO}-${SPANS}`),
);
const START = '2025-01-01T00:00:00Z';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const WEB_DIST = resolve(import.meta.dirname, '../../apps/web/dist/index.html');

/** Loads the scenario unless the directory already holds it; returns the time range. */
async function load(): Promise<{ fromMs: number; toMs: number }> {
  const spec = presetSpec(SCENARIO);
  const probe = createGenerator(spec, { requests: 1000, seed: 1, start: START });
  const requests = Math.floor((SPANS * 1000) / probe.expectedSpans);
  const gen = createGenerator(spec, { requests, seed: 1, start: START });
  return loadGenerated(DATA_DIR, gen, 'bench-traces', SCENARIO);
}

/** One trace of `n` spans: a root over 100 calls, each over its share of leaf spans. */
function bigTrace(n: number, t0Ns: bigint): { traceId: string; body: string } {
  const traceId = 'b16b16b1600000000000000000000001';
  const hex = (i: number): string => i.toString(16).padStart(16, '0');
  const at = (us: number): string => String(t0Ns + BigInt(Math.round(us)) * 1000n);
  const spans: unknown[] = [];
  const add = (id: number, parent: number, name: string, fromUs: number, toUs: number) =>
    spans.push({
      traceId,
      spanId: hex(id),
      parentSpanId: parent === 0 ? '' : hex(parent),
      name,
      kind: parent === 0 ? 2 : 3,
      startTimeUnixNano: at(fromUs),
      endTimeUnixNano: at(toUs),
    });
  add(1, 0, 'GET /big', 0, 1_000_000);
  const calls = 100;
  const leaves = Math.max(0, n - 1 - calls);
  for (let c = 0; c < calls; c++) {
    const from = c * 9_000;
    add(2 + c, 1, 'call', from, from + 8_000 + (c % 7) * 100);
    for (let l = 0; l < leaves / calls; l++) {
      const id = 2 + calls + c * Math.ceil(leaves / calls) + l;
      if (id > n) break;
      add(id, 2 + c, 'leaf', from + l * 70, from + l * 70 + 60);
    }
  }
  const resourceSpans = [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'big' } }] },
      scopeSpans: [{ scope: { name: 'bench' }, spans }],
    },
  ];
  return { traceId, body: JSON.stringify({ resourceSpans }) };
}

async function timeRoute(
  pid: number,
  name: string,
  url: string,
  read: (text: string) => string = () => '',
): Promise<void> {
  const walls: number[] = [];
  const cpus: number[] = [];
  let summary = '';
  let bytes = 0;
  for (let i = 0; i < RUNS; i++) {
    const before = procStats(pid).cpuMs;
    const t = performance.now();
    const res = await fetch(url);
    const text = await res.text();
    walls.push(performance.now() - t);
    cpus.push(procStats(pid).cpuMs - before);
    if (!res.ok) throw new Error(`${name}: ${res.status} ${text.slice(0, 300)}`);
    summary = read(text);
    bytes = Buffer.byteLength(text);
  }
  console.log(
    `${name.padEnd(26)} wall ${walls.map((w) => w.toFixed(0)).join(' / ')} ms   server CPU ${cpus.map((c) => c.toFixed(0)).join(' / ')} ms   ${(bytes / 1000).toFixed(0)} kB   ${summary}`,
  );
}

/** What a trace search answers, in a few words. */
function describeTraces(text: string): string {
  const a = parseAnswer('traces', text);
  return `${a.traces.length} traces, more: ${String(a.more)}`;
}

/** What a critical-path answer holds, in a few words. */
function describePaths(text: string): string {
  const a = parseAnswer('criticalPath', text);
  const { slow, typical } = a;
  return `${String(a.requests)} requests; slow ${slow.requests} (sampled ${String(slow.sampled)}), typical ${typical.requests} (sampled ${String(typical.sampled)}), ${a.entries.length} entries`;
}

/** Opens the trace page in Chromium: ms from navigation to the waterfall and the path table. */
async function openInBrowser(base: string, traceId: string): Promise<void> {
  if (!existsSync(CHROMIUM) || !existsSync(WEB_DIST)) {
    console.log(`trace page: skipped (needs ${CHROMIUM} and a built dashboard at ${WEB_DIST})`);
    return;
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  try {
    for (let i = 0; i < RUNS; i++) {
      const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
      await page.addInitScript(`(() => {
        const seen = () => {
          if (window.__wf === undefined && document.querySelector('[data-chart="waterfall"]')) window.__wf = performance.now();
          if (window.__cp === undefined && document.querySelector('[data-testid="critical-path"]')) window.__cp = performance.now();
        };
        new MutationObserver(seen).observe(document, { childList: true, subtree: true });
      })();`);
      await page.goto(`${base}/traces/${traceId}`);
      await page.locator('[data-testid="critical-path"]').waitFor({ timeout: 60_000 });
      // A string: the bench compiles without the DOM library.
      const t = await page.evaluate<{ wf: number; cp: number; api: number; script: number }>(
        `({ wf: window.__wf ?? NaN, cp: window.__cp ?? NaN,
            api: performance.getEntriesByType('resource').find((e) => e.name.includes(${JSON.stringify(`${API_PATHS.traces.path}/`)}))?.responseEnd ?? NaN,
            script: performance.getEntriesByType('resource').filter((e) => e.name.endsWith('.js')).reduce((a, e) => Math.max(a, e.responseEnd), 0) })`,
      );
      const rows = await page.locator('.ts-wf-row').count();
      console.log(
        `trace page (${TRACE_SPANS.toLocaleString()} spans, ${rows} rows drawn): scripts loaded at ${t.script.toFixed(0)} ms, trace fetched at ${t.api.toFixed(0)} ms, waterfall at ${t.wf.toFixed(0)} ms, critical-path table at ${t.cp.toFixed(0)} ms after navigation`,
      );
      await page.close();
    }
  } finally {
    await browser.close();
  }
}

const storedSpans = (base: string, traceId: string): Promise<number> =>
  apiClient(fetch, base)
    .call('trace', { params: { traceId } })
    .then(
      (t) => t.totalSpans,
      () => 0,
    );

/**
 * Sends the big trace over OTLP unless the reused directory already holds it (sent again it
 * would be stored twice: the page would then show a trace cut at the read limit), then waits
 * until it is whole (ingest batches before it writes).
 */
async function sendOnce(
  base: string,
  otlpPort: number,
  big: { traceId: string; body: string },
): Promise<void> {
  const have = await storedSpans(base, big.traceId);
  if (have >= TRACE_SPANS) return;
  if (have > 0) throw new Error(`${DATA_DIR} holds part of trace ${big.traceId}: remove it`);
  const res = await fetch(`http://127.0.0.1:${otlpPort}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: big.body,
  });
  if (!res.ok) throw new Error(`OTLP export of the big trace: ${res.status}`);
  for (let i = 0; i < 120; i++) {
    if ((await storedSpans(base, big.traceId)) >= TRACE_SPANS) return;
    await new Promise((ok) => setTimeout(ok, 500));
  }
}

async function main(): Promise<void> {
  const range = await load();
  const port = await freePort();
  const otlpPort = await freePort();
  const server = await startServer(port, DATA_DIR, otlpPort);
  const pid = server.pid ?? 0;
  try {
    const base = `http://127.0.0.1:${port}`;
    const r = { from: String(range.fromMs), to: String(range.toMs) };
    const url = (u: string) => `${base}${u}`;
    console.log(
      `\nserver pid ${pid}; ${SPANS.toLocaleString()} spans of ${SCENARIO}, ${RUNS} run(s)`,
    );
    const search = (label: string, query: Omit<EndpointQuery<'traces'>, 'from' | 'to'>) =>
      timeRoute(
        pid,
        label,
        url(endpointUrl('traces', { query: { ...r, ...query } })),
        describeTraces,
      );
    await search('traces newest', {});
    await search('traces slowest', { order: 'slowest' });
    await search('traces >= 50 ms, 1000', { minDurationMs: 50, limit: 1000 });
    await search(`traces service=${SEARCH_SERVICE}`, { service: SEARCH_SERVICE });
    await search(`traces service, slowest`, { service: SEARCH_SERVICE, order: 'slowest' });
    const paths = (label: string, query: Omit<EndpointQuery<'criticalPath'>, 'from' | 'to'>) =>
      timeRoute(
        pid,
        label,
        url(endpointUrl('criticalPath', { query: { ...r, ...query } })),
        describePaths,
      );
    await paths('criticalpath p99', {});
    await paths('criticalpath p90', { band: 'p90' });
    const big = bigTrace(TRACE_SPANS, BigInt(range.fromMs) * 1_000_000n + 1_000_000_000n);
    await sendOnce(base, otlpPort, big);
    const traceId = big.traceId;
    await timeRoute(
      pid,
      `trace of ${TRACE_SPANS} spans (API)`,
      url(endpointUrl('trace', { params: { traceId } })),
    );
    // What the trace page asks for: each span without attributes, events and links.
    await timeRoute(
      pid,
      `trace summary (API)`,
      url(endpointUrl('trace', { params: { traceId }, query: { fields: 'summary' } })),
    );
    await timeRoute(
      pid,
      `one span in full (API)`,
      url(endpointUrl('span', { params: { traceId, spanId: '1'.padStart(16, '0') } })),
    );
    await openInBrowser(base, big.traceId);
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
}

await main();
