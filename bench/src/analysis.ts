// npm run bench:analysis — 10 million tracegen spans in the embedded engine, then
// /api/v1/fanouts and /api/v1/stragglers (and /hosts, /leaves) for one operation over the whole
// range, against a `tailscope serve` child process. Prints wall time, the server's CPU time per
// request and its resident memory. Not a test.
//
// env: SPANS (default 10000000), SCENARIO (bigtable-multiget), RUNS (3), LIVE_RUNS (1), DATA_DIR
// (a temp dir, reused when it already holds the spans: FRESH=1 rebuilds it), SKIP_LIVE=1 (keep
// stored fan-outs and measure only them), LIMIT_MIB (6144: the server is stopped above it).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import cliProgress from 'cli-progress';
import { createGenerator, encodeOtlpProtobuf, presetSpec } from '@tailscope/tracegen';
import {
  decodeTraceRequest,
  insertNative,
  materializeFanouts,
  migrate,
  openStore,
  selectStats,
  sql,
  TRACE_COLUMNS,
  TRACES_TABLE,
} from '@tailscope/api';

const SPANS = Number(process.env.SPANS ?? 10_000_000);
const SCENARIO = process.env.SCENARIO ?? 'bigtable-multiget';
const RUNS = Number(process.env.RUNS ?? 3);
const LIVE_RUNS = Number(process.env.LIVE_RUNS ?? 1);
const DATA_DIR = resolve(
  process.env.DATA_DIR ?? join(tmpdir(), `tailscope-bench-analysis-${SCENARIO}-${SPANS}`),
);
const START = '2025-01-01T00:00:00Z';
const LIMIT_MIB = Number(process.env.LIMIT_MIB ?? 6144);

async function load(): Promise<{
  leafService: string;
  leafOperation: string;
  fromMs: number;
  toMs: number;
}> {
  const spec = presetSpec(SCENARIO);
  const probe = createGenerator(spec, { requests: 1000, seed: 1, start: START });
  const requests = Math.floor((SPANS * 1000) / probe.expectedSpans);
  const gen = createGenerator(spec, { requests, seed: 1, start: START });
  const op = gen.truth.operation;
  const range = {
    fromMs: gen.truth.start.epochMs,
    toMs: gen.truth.start.epochMs + gen.truth.durationMs + 60_000,
  };
  const store = openStore({ dataDir: DATA_DIR });
  await migrate(store);
  const have = (await selectStats(store)).spans;
  if (have >= gen.expectedSpans * 0.99 && process.env.FRESH !== '1') {
    console.log(`reusing ${have.toLocaleString()} spans in ${DATA_DIR}`);
    await store.close();
    return { ...op, ...range };
  }
  await store.close();
  rmSync(DATA_DIR, { recursive: true, force: true });
  const fresh = openStore({ dataDir: DATA_DIR });
  await migrate(fresh);
  console.log(
    `loading ${SCENARIO}: ${requests.toLocaleString()} requests, ~${gen.expectedSpans.toLocaleString()} spans`,
  );
  const bar = new cliProgress.SingleBar(
    { format: 'load {bar} {value}/{total} spans  {eta}s' },
    cliProgress.Presets.shades_classic,
  );
  if (process.stdout.isTTY) bar.start(gen.expectedSpans, 0);
  const t = performance.now();
  let parts: Buffer[] = [];
  let pending = 0;
  let done = 0;
  let block = 0;
  const flush = async (): Promise<void> => {
    if (parts.length === 0) return;
    await insertNative(fresh, {
      table: TRACES_TABLE,
      columns: TRACE_COLUMNS.map(([name]) => name),
      parts,
      dedupToken: `bench-${block}`,
      scratchPath: join(tmpdir(), `tailscope-bench-${process.pid}-${block++}.native`),
    });
    done += pending;
    if (process.stdout.isTTY) bar.update(done);
    parts = [];
    pending = 0;
  };
  for (const batch of gen.batches()) {
    const d = decodeTraceRequest(encodeOtlpProtobuf(batch));
    parts.push(...d.columns.tracesBlock());
    pending += d.accepted;
    if (pending >= 250_000) await flush();
  }
  await flush();
  if (process.stdout.isTTY) bar.stop();
  const loadS = (performance.now() - t) / 1000;
  const m = performance.now();
  await fresh.command(sql`OPTIMIZE TABLE otel_traces FINAL`);
  console.log(
    `loaded ${done.toLocaleString()} spans in ${loadS.toFixed(0)} s (${(done / loadS / 1000).toFixed(0)}k spans/s); ` +
      `OPTIMIZE FINAL ${((performance.now() - m) / 1000).toFixed(0)} s`,
  );
  await fresh.close();
  return { ...op, ...range };
}

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => {
        ok(port);
      });
    });
  });
}

/** Resident memory now and at peak (VmHWM), MiB; CPU time (user + system), ms. */
function procStats(pid: number): { rss: number; peak: number; cpuMs: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string): number =>
    Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  const ticks = Number(stat[11] ?? 0) + Number(stat[12] ?? 0);
  return { rss: kb('VmRSS'), peak: kb('VmHWM'), cpuMs: ticks * 10 };
}

async function startServer(port: number): Promise<ChildProcess> {
  const bin = resolve(import.meta.dirname, '../../apps/cli/bin/tailscope.js');
  const child = spawn(
    process.execPath,
    [
      bin,
      'serve',
      '--data-dir',
      DATA_DIR,
      '--port',
      String(port),
      '--otlp-http-port',
      '0',
      '--otlp-grpc-port',
      '0',
    ],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (Date.now() > deadline) throw new Error('server did not become ready in 120 s');
    try {
      const r = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (r.ok) return child;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

type Op = Awaited<ReturnType<typeof load>>;

/** One server lifetime: every route `runs` times; prints wall, server CPU and memory. */
async function measure(op: Op, runs: number, label: string): Promise<void> {
  const port = await freePort();
  const server = await startServer(port);
  const pid = server.pid ?? 0;
  // A shared machine: never let a runaway query take it down.
  const watchdog = setInterval(() => {
    if (procStats(pid).rss > LIMIT_MIB) {
      console.error(`server RSS above ${LIMIT_MIB} MiB: stopping it`);
      server.kill('SIGKILL');
    }
  }, 250);
  try {
    const base = `http://127.0.0.1:${port}/api/v1`;
    const q = `from=${op.fromMs}&to=${op.toMs}&leafService=${encodeURIComponent(op.leafService)}&leafOperation=${encodeURIComponent(op.leafOperation)}`;
    const routes: [string, string][] = [
      ['fanouts', `${base}/fanouts?${q}`],
      ['stragglers', `${base}/stragglers?${q}`],
      ['stragglersAll', `${base}/stragglers?${q}&maxFanouts=1000000`],
      ['hosts', `${base}/hosts?${q}&windowSeconds=60`],
      ['leaves', `${base}/leaves?${q}`],
    ];
    console.log(
      `\n${label}: server pid ${pid}, idle RSS ${procStats(pid).rss.toFixed(0)} MiB; ${op.leafService}/${op.leafOperation}, ${runs} run(s) each`,
    );
    for (const [name, url] of routes) {
      const walls: number[] = [];
      const cpus: number[] = [];
      let bytes = 0;
      let summary = '';
      for (let i = 0; i < runs; i++) {
        const before = procStats(pid).cpuMs;
        const t = performance.now();
        const res = await fetch(url);
        const body = Buffer.from(await res.arrayBuffer());
        walls.push(performance.now() - t);
        cpus.push(procStats(pid).cpuMs - before);
        if (!res.ok) throw new Error(`${name}: ${res.status} ${body.toString().slice(0, 300)}`);
        bytes = body.length;
        summary = describe(name, body);
      }
      const st = procStats(pid);
      console.log(
        `${name.padEnd(13)} wall ${walls.map((w) => w.toFixed(0)).join(' / ')} ms   server CPU ${cpus.map((c) => c.toFixed(0)).join(' / ')} ms   ` +
          `RSS ${st.rss.toFixed(0)} MiB (peak ${st.peak.toFixed(0)})   ${(bytes / 1024).toFixed(0)} KiB  ${summary}`,
      );
    }
    console.log(`server peak RSS ${procStats(pid).peak.toFixed(0)} MiB`);
  } finally {
    clearInterval(watchdog);
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
}

function describe(name: string, body: Buffer): string {
  if (name === 'fanouts') {
    const f = (
      JSON.parse(body.toString()) as { fanouts: { requests: number; width: { max: number } }[] }
    ).fanouts[0];
    return `${f?.requests ?? 0} fan-outs, width ${f?.width.max ?? 0}`;
  }
  if (name.startsWith('stragglers')) {
    const s = JSON.parse(body.toString()) as { calls: number; rows: unknown[]; sampled: boolean };
    return `${s.calls.toLocaleString()} calls, ${s.rows.length} rows${s.sampled ? ' (uniform sample of fan-outs)' : ''}`;
  }
  return '';
}

async function withStore<T>(f: (store: ReturnType<typeof openStore>) => Promise<T>): Promise<T> {
  const store = openStore({ dataDir: DATA_DIR });
  try {
    return await f(store);
  } finally {
    await store.close();
  }
}

async function main(): Promise<void> {
  const op = await load();
  if (process.env.SKIP_LIVE !== '1') {
    // Live detection first: no stored fan-outs.
    await withStore(async (s) => {
      await s.command(sql`DROP TABLE IF EXISTS tailscope_fanouts`);
      await s.command(sql`DROP TABLE IF EXISTS tailscope_fanout_chunks`);
    });
    await measure(op, LIVE_RUNS, 'live detection (no stored fan-outs)');
  }
  const t = performance.now();
  const c = process.cpuUsage();
  const built = await withStore((s) =>
    materializeFanouts(s, {
      fromNs: BigInt(op.fromMs) * 1_000_000n,
      toNs: BigInt(op.toMs) * 1_000_000n,
      nowNs: BigInt(Date.now()) * 1_000_000n,
    }),
  );
  const d = process.cpuUsage(c);
  console.log(
    `\nmaterialized ${built.chunks} chunks of 10 min into tailscope_fanouts: wall ${((performance.now() - t) / 1000).toFixed(1)} s, CPU ${((d.user + d.system) / 1e6).toFixed(1)} s`,
  );
  await measure(op, RUNS, 'stored fan-outs (tailscope_fanouts)');
  console.log(`\ndata in ${DATA_DIR} (reused by the next run; delete it when done)`);
}

await main();
