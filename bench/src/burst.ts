// npm run bench:burst — a burst of concurrent mixed analyses against a `tailscope serve` child
// over the `microservices` preset (issue 25): how many answer 503 and how fast, how long
// /api/v1/stats and a trace search take during the burst, and how long the server keeps
// working (its CPU) after every client has gone. Not a test.
//
// env: SPANS (default 300000), BURST (36 requests), ABORT_AFTER_S (8: the clients leave then),
// DATA_DIR (reused when it holds the spans; FRESH=1 rebuilds it), LIMIT_MIB (6144), IDLE_CAP_S
// (600: longest wait for the server to go idle).
import { dataDirFor, loadPreset, procStats, withServer, type Loaded } from './analysis-support';

const SPANS = Number(process.env.SPANS ?? 300_000);
const BURST = Number(process.env.BURST ?? 36);
const ABORT_AFTER_MS = Number(process.env.ABORT_AFTER_S ?? 8) * 1000;
const LIMIT_MIB = Number(process.env.LIMIT_MIB ?? 6144);
const IDLE_CAP_MS = Number(process.env.IDLE_CAP_S ?? 600) * 1000;
const DATA_DIR = dataDirFor('microservices', SPANS);

interface Outcome {
  kind: string;
  status: number | 'aborted';
  ms: number;
  retryAfter: string | null;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The mixed requests of the burst, cycled: the routes the dashboard's analysis pages ask. */
function requests(base: string, op: Loaded): [string, string, RequestInit | undefined][] {
  const range = `from=${op.fromMs}&to=${op.toMs}`;
  const leaf = `leafService=${encodeURIComponent(op.leafService)}&leafOperation=${encodeURIComponent(op.leafOperation)}`;
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
    ['whatif-hedge', `${base}/whatif`, whatIf({ kind: 'hedge', delayPercentile: 95 })],
    ['stragglers', `${base}/stragglers?${range}&${leaf}`, undefined],
    ['fanouts', `${base}/fanouts?${range}&${leaf}`, undefined],
    ['whatif-probation', `${base}/whatif`, whatIf({ kind: 'probation' })],
    ['hosts', `${base}/hosts?${range}&${leaf}&windowSeconds=60`, undefined],
    ['leaves', `${base}/leaves?${range}&${leaf}`, undefined],
    ['edges', `${base}/edges?${range}`, undefined],
    ['episodes', `${base}/episodes?${range}`, undefined],
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
await withServer(DATA_DIR, LIMIT_MIB, async (base, pid) => {
  const cases = requests(base, op);
  // A fresh server first stores the preset's fan-outs and episode series (its materializers):
  // the burst starts once that is done, so the work after the clients leave is theirs alone.
  const startupMs = await untilIdle(pid);
  console.log(`server idle ${(startupMs / 1000).toFixed(1)} s after start (materializers)`);
  const quick = await timed('stats (idle)', `${base}/stats`, undefined);
  console.log(
    `server pid ${pid}; ${op.leafService}/${op.leafOperation}; idle stats ${quick.ms.toFixed(0)} ms`,
  );
  const clients = new AbortController();
  const t0 = performance.now();
  const burst = Array.from({ length: BURST }, (_, i) => {
    const c = cases[i % cases.length];
    if (!c) throw new Error('no requests');
    const [kind, url, init] = c;
    return timed(kind, url, init, clients.signal);
  });
  // The cheap answers, asked while the burst is in flight; the clients leave at ABORT_AFTER_S
  // whether or not these have answered.
  const during = sleep(500).then(async () => [
    await timed('stats', `${base}/stats`, undefined),
    await timed(
      'trace search',
      `${base}/traces?from=${op.fromMs}&to=${op.toMs}&limit=20`,
      undefined,
    ),
  ]);
  await Promise.race([Promise.all(burst), sleep(ABORT_AFTER_MS)]);
  clients.abort();
  const leftAt = performance.now();
  const outcomes = await Promise.all(burst);
  const workAfterMs = await untilIdle(pid);
  const probes = await during;
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
  for (const o of probes)
    console.log(`  ${o.kind} during the burst: ${String(o.status)} in ${o.ms.toFixed(0)} ms`);
  console.log(`  server CPU busy for ${(workAfterMs / 1000).toFixed(1)} s after the clients left`);
});
