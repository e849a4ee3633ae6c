// npm run bench:burst — a burst of concurrent mixed analyses against a `tailscope serve` child
// over the `microservices` preset (issue 25), while OTLP ingest runs at a steady rate: how many
// answer 503 and how fast, how long the cheap answers (/api/v1/stats, a trace read, a trace
// search) take, probed in a loop before and during the burst (p50/max), and how long the server
// keeps working (its CPU) after every client has gone. Not a test.
//
// env: SPANS (default 300000), BURST (36 requests), ABORT_AFTER_S (8: the clients leave then),
// DATA_DIR (reused when it holds the spans; FRESH=1 rebuilds it), LIMIT_MIB (6144), IDLE_CAP_S
// (600: longest wait for the server to go idle), INGEST_SPS (2000 spans/s of steady OTLP
// ingest; 0: none), PROBE_GAP_MS (200: pause between two rounds of probes).
import {
  dataDirFor,
  freePort,
  loadPreset,
  procStats,
  withServer,
  type Loaded,
} from './analysis-support';
import { startSteadyIngest } from './pages-ingest';
import { API_PATHS, apiClient, endpointUrl } from '@tailscope/contracts';

const SPANS = Number(process.env.SPANS ?? 300_000);
const BURST = Number(process.env.BURST ?? 36);
const ABORT_AFTER_MS = Number(process.env.ABORT_AFTER_S ?? 8) * 1000;
const LIMIT_MIB = Number(process.env.LIMIT_MIB ?? 6144);
const IDLE_CAP_MS = Number(process.env.IDLE_CAP_S ?? 600) * 1000;
const DATA_DIR = dataDirFor('microservices', SPANS);
const INGEST_SPS = Number(process.env.INGEST_SPS ?? 2000);
const PROBE_GAP_MS = Number(process.env.PROBE_GAP_MS ?? 200);

interface Outcome {
  kind: string;
  status: number | 'aborted';
  ms: number;
  retryAfter: string | null;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The mixed requests of the burst, cycled: the routes the dashboard's analysis pages ask. */
function requests(base: string, op: Loaded): [string, string, RequestInit | undefined][] {
  const at = (u: string) => `${new URL(base).origin}${u}`;
  const range = { from: String(op.fromMs), to: String(op.toMs) };
  const leaf = { ...range, leafService: op.leafService, leafOperation: op.leafOperation };
  const whatIf = (policy: object): RequestInit => ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      leafService: op.leafService,
      leafOperation: op.leafOperation,
      from: op.fromMs,
      to: op.toMs,
      policy,
    }),
  });
  return [
    ['whatif-hedge', at(API_PATHS.whatif.path), whatIf({ kind: 'hedge', delayPercentile: 95 })],
    ['stragglers', at(endpointUrl('stragglers', { query: leaf })), undefined],
    ['fanouts', at(endpointUrl('fanouts', { query: leaf })), undefined],
    ['whatif-probation', at(API_PATHS.whatif.path), whatIf({ kind: 'probation' })],
    ['hosts', at(endpointUrl('hosts', { query: { ...leaf, windowSeconds: 60 } })), undefined],
    ['leaves', at(endpointUrl('leaves', { query: leaf })), undefined],
    ['edges', at(endpointUrl('edges', { query: range })), undefined],
    ['episodes', at(endpointUrl('episodes', { query: range })), undefined],
  ];
}

async function timed(
  kind: string,
  url: string,
  init: RequestInit | undefined,
  signal?: AbortSignal,
): Promise<Outcome> {
  const t = performance.now();
  try {
    const res = await fetch(url, { ...init, ...(signal ? { signal } : {}) });
    await res.arrayBuffer();
    return {
      kind,
      status: res.status,
      ms: performance.now() - t,
      retryAfter: res.headers.get('retry-after'),
    };
  } catch {
    return { kind, status: 'aborted', ms: performance.now() - t, retryAfter: null };
  }
}

/** The trace search the probes and the start-up ask: the range's newest 20 traces. */
const searchQuery = (op: Loaded) => ({ from: String(op.fromMs), to: String(op.toMs), limit: 20 });
const searchUrl = (op: Loaded): string => endpointUrl('traces', { query: searchQuery(op) });

/** The cheap answers a person waits on while analyses run. */
function probes(base: string, op: Loaded, traceId: string): [string, string][] {
  const at = (u: string) => `${new URL(base).origin}${u}`;
  return [
    ['stats', at(endpointUrl('stats', {}))],
    ['trace read', at(endpointUrl('trace', { params: { traceId } }))],
    ['trace search', at(searchUrl(op))],
  ];
}

/** Rounds of the probes, one after another, until `done` says stop (at least one round). */
async function probeLoop(
  base: string,
  op: Loaded,
  traceId: string,
  done: () => boolean,
): Promise<Outcome[]> {
  const out: Outcome[] = [];
  do {
    for (const [kind, url] of probes(base, op, traceId))
      out.push(await timed(kind, url, undefined));
    await sleep(PROBE_GAP_MS);
  } while (!done());
  return out;
}

const pct = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
};

function printProbes(when: string, outcomes: Outcome[]): void {
  for (const kind of new Set(outcomes.map((o) => o.kind))) {
    const of = outcomes.filter((o) => o.kind === kind);
    const ms = of.map((o) => o.ms);
    const statuses = [...new Set(of.map((o) => String(o.status)))].join('/');
    console.log(
      `  ${kind} ${when}: n=${of.length} p50 ${pct(ms, 0.5).toFixed(0)} ms, p99 ${pct(ms, 0.99).toFixed(0)} ms, max ${Math.max(...ms).toFixed(0)} ms (${statuses})`,
    );
  }
}

/** Ms from now until the server's CPU use stays under 5% of one core for 2 s (or the cap). */
async function untilIdle(pid: number): Promise<number> {
  const t0 = performance.now();
  let last = procStats(pid).cpuMs;
  let quiet = 0;
  while (performance.now() - t0 < IDLE_CAP_MS) {
    await sleep(500);
    const now = procStats(pid).cpuMs;
    quiet = now - last < 25 ? quiet + 1 : 0;
    last = now;
    if (quiet >= 4) return performance.now() - t0 - 2000;
  }
  return IDLE_CAP_MS;
}

const op = await loadPreset({
  scenario: 'microservices',
  spans: SPANS,
  dataDir: DATA_DIR,
  fresh: process.env.FRESH === '1',
});
const otlpPort = INGEST_SPS > 0 ? await freePort() : 0;
await withServer(
  DATA_DIR,
  LIMIT_MIB,
  async (base, pid) => {
    const cases = requests(base, op);
    // A fresh server first stores the preset's fan-outs and episode series (its materializers):
    // the burst starts once that is done, so the work after the clients leave is theirs alone.
    const startupMs = await untilIdle(pid);
    console.log(`server idle ${(startupMs / 1000).toFixed(1)} s after start (materializers)`);
    const search = await apiClient(fetch, new URL(base).origin).call('traces', {
      query: searchQuery(op),
    });
    const traceId = search.traces[0]?.traceId;
    if (traceId === undefined) throw new Error('no trace in range');
    const ingest =
      INGEST_SPS > 0
        ? startSteadyIngest(`http://127.0.0.1:${otlpPort}/v1/traces`, INGEST_SPS)
        : undefined;
    console.log(
      `server pid ${pid}; ${op.leafService}/${op.leafOperation}; steady ingest ${INGEST_SPS} spans/s`,
    );
    let rounds = 0;
    const quiet = await probeLoop(base, op, traceId, () => ++rounds >= 10);
    const clients = new AbortController();
    const t0 = performance.now();
    const burst = Array.from({ length: BURST }, (_, i) => {
      const c = cases[i % cases.length];
      if (!c) throw new Error('no requests');
      const [kind, url, init] = c;
      return timed(kind, url, init, clients.signal);
    });
    // The cheap answers, asked in a loop while the burst is in flight, until the clients leave
    // (at ABORT_AFTER_S, or when every analysis has answered).
    let over = false;
    const during = sleep(300).then(() => probeLoop(base, op, traceId, () => over));
    await Promise.race([Promise.all(burst), sleep(ABORT_AFTER_MS)]);
    over = true;
    clients.abort();
    const leftAt = performance.now();
    const outcomes = await Promise.all(burst);
    const probed = await during;
    // Ingest stops too: the server's CPU after this is the analyses' alone.
    await ingest?.stop();
    const workAfterMs = await untilIdle(pid);
    const busy = outcomes.filter((o) => o.status === 503);
    const byStatus = new Map<string, number>();
    for (const o of outcomes)
      byStatus.set(String(o.status), (byStatus.get(String(o.status)) ?? 0) + 1);
    const slowest503 = busy.reduce((m, o) => Math.max(m, o.ms), 0);
    const answered = outcomes.filter((o) => typeof o.status === 'number' && o.status !== 503);
    console.log(
      `burst of ${BURST} mixed analyses; clients left after ${((leftAt - t0) / 1000).toFixed(1)} s`,
    );
    console.log(`  statuses: ${[...byStatus].map(([s, n]) => `${s} x${n}`).join(', ')}`);
    console.log(
      `  503: ${busy.length}, slowest 503 after ${slowest503.toFixed(0)} ms, Retry-After ${busy[0]?.retryAfter ?? '-'}`,
    );
    for (const o of answered)
      console.log(`  ${o.kind}: ${String(o.status)} after ${o.ms.toFixed(0)} ms`);
    printProbes('before the burst', quiet);
    printProbes('during the burst', probed);
    if (ingest)
      console.log(`  steady ingest: ${ingest.sent()} spans accepted, ${ingest.refused()} refused`);
    console.log(
      `  server CPU busy for ${(workAfterMs / 1000).toFixed(1)} s after the clients left`,
    );
  },
  otlpPort,
);
