// Shared by bench:analysis modes: load a tracegen preset into an embedded store, start a
// `tailscope serve` child on it, read its memory and CPU from /proc, store its fan-outs.
import { createInterface } from 'node:readline';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import cliProgress from 'cli-progress';
import { createGenerator, presetSpec } from '@tailscope/tracegen';
import { materializeFanouts, migrate, openStore, selectStats } from '@tailscope/api';
import { insertGenerated } from './generated-store';

export const START = '2025-01-01T00:00:00Z';

export interface Loaded {
  leafService: string;
  leafOperation: string;
  fromMs: number;
  toMs: number;
}

/** DATA_DIR, else a temp dir named by scenario and size; `suffix` keeps a second store apart. */
export function dataDirFor(scenario: string, spans: number, suffix = ''): string {
  const dir = process.env.DATA_DIR;
  return resolve(
    dir !== undefined
      ? `${dir}${suffix}`
      : join(tmpdir(), `tailscope-bench-analysis-${scenario}-${spans}`),
  );
}

/**
 * Loads ~`spans` spans of `scenario` into `dataDir` through the OTLP protobuf decoder and Native
 * inserts, unless it already holds them and `fresh` is false.
 */
export async function loadPreset(opts: {
  scenario: string;
  spans: number;
  dataDir: string;
  fresh: boolean;
}): Promise<Loaded> {
  const { scenario, spans, dataDir } = opts;
  const spec = presetSpec(scenario);
  const probe = createGenerator(spec, { requests: 1000, seed: 1, start: START });
  const requests = Math.max(1, Math.floor((spans * 1000) / probe.expectedSpans));
  const gen = createGenerator(spec, { requests, seed: 1, start: START });
  const op = gen.truth.operation;
  const range = {
    fromMs: gen.truth.start.epochMs,
    toMs: gen.truth.start.epochMs + gen.truth.durationMs + 60_000,
  };
  const store = openStore({ dataDir });
  await migrate(store);
  const have = (await selectStats(store)).spans;
  await store.close();
  if (have >= gen.expectedSpans * 0.99 && !opts.fresh) {
    console.log(`reusing ${have.toLocaleString()} spans in ${dataDir}`);
    return { ...op, ...range };
  }
  rmSync(dataDir, { recursive: true, force: true });
  const fresh = openStore({ dataDir });
  await migrate(fresh);
  console.log(
    `loading ${scenario}: ${requests.toLocaleString()} requests, ~${gen.expectedSpans.toLocaleString()} spans`,
  );
  const bar = new cliProgress.SingleBar(
    { format: 'load {bar} {value}/{total} spans  {eta}s' },
    cliProgress.Presets.shades_classic,
  );
  if (process.stdout.isTTY) bar.start(gen.expectedSpans, 0);
  const t = performance.now();
  const done = await insertGenerated(fresh, gen, 'bench', (n) => {
    if (process.stdout.isTTY) bar.update(n);
  });
  if (process.stdout.isTTY) bar.stop();
  const loadS = (performance.now() - t) / 1000;
  console.log(
    `loaded ${done.toLocaleString()} spans in ${loadS.toFixed(0)} s, OPTIMIZE FINAL included ` +
      `(${(done / loadS / 1000).toFixed(0)}k spans/s)`,
  );
  await fresh.close();
  return { ...op, ...range };
}

export async function withStore<T>(
  dataDir: string,
  f: (store: ReturnType<typeof openStore>) => Promise<T>,
): Promise<T> {
  const store = openStore({ dataDir });
  try {
    return await f(store);
  } finally {
    await store.close();
  }
}

/** Detects and stores every fan-out of the range (what the server's materializer does). */
export async function storeFanouts(dataDir: string, op: Loaded): Promise<void> {
  const t = performance.now();
  const c = process.cpuUsage();
  const built = await withStore(dataDir, (s) =>
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
}

export function freePort(): Promise<number> {
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
export function procStats(pid: number): { rss: number; peak: number; cpuMs: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string): number =>
    Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  const ticks = Number(stat[11] ?? 0) + Number(stat[12] ?? 0);
  return { rss: kb('VmRSS'), peak: kb('VmHWM'), cpuMs: ticks * 10 };
}

/**
 * `tailscope serve` on `dataDir` as a child process, ready; its OTLP/HTTP receiver on `otlpPort`
 * (0: any free port, for a benchmark that sends nothing).
 */
export async function startServer(
  port: number,
  dataDir: string,
  otlpPort = 0,
  log?: (line: string) => void,
): Promise<ChildProcess> {
  const bin = resolve(import.meta.dirname, '../../apps/cli/bin/tailscope.js');
  const args = ['serve', '--data-dir', dataDir, '--port', String(port)];
  args.push('--otlp-http-port', String(otlpPort), '--otlp-grpc-port', '0');
  const child = spawn(process.execPath, [bin, ...args], {
    stdio: ['ignore', log ? 'pipe' : 'ignore', 'inherit'],
  });
  // `log`: each line the server writes to its standard output.
  if (log && child.stdout) createInterface({ input: child.stdout }).on('line', log);
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error('server did not become ready in 120 s');
    }
    try {
      const r = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (r.ok) return child;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Runs `f` against a fresh server on `dataDir`, stopping it above `limitMiB` and at the end; its
 * OTLP/HTTP receiver on `otlpPort` (0: any).
 */
export async function withServer<T>(
  dataDir: string,
  limitMiB: number,
  f: (base: string, pid: number) => Promise<T>,
  otlpPort = 0,
): Promise<T> {
  const port = await freePort();
  const server = await startServer(port, dataDir, otlpPort);
  const pid = server.pid ?? 0;
  // A shared machine: never let a runaway query take it down.
  const watchdog = setInterval(() => {
    if (procStats(pid).rss > limitMiB) {
      console.error(`server RSS above ${limitMiB} MiB: stopping it`);
      server.kill('SIGKILL');
    }
  }, 250);
  try {
    return await f(`http://127.0.0.1:${port}/api/v1`, pid);
  } finally {
    clearInterval(watchdog);
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
}
