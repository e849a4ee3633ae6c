import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EpisodesResponse, ServiceEpisode, StatsResponse } from '@tailscope/contracts';

/**
 * A real network fault named as the network (issue #27). This kernel has no netem, so the
 * fault is a congested slow link made by the kernel: two network namespaces this test creates
 * (nothing else in them but loopback), joined by a veth pair with addresses only they have.
 * The client namespace runs the real `tailscope serve` and a caller (10 calls/s); the server
 * namespace runs a small OpenTelemetry JS service (apps/demo/src/testing/cpu-service.ts, 3 ms of
 * CPU per call, its spans and runtime metrics sent to Tailscope through the veth). After 45 s the
 * client's end of the link gets a `tbf` qdisc (1 Mbit/s, 150 ms of queue) and a bulk upload
 * across it for 30 s: the callers' requests wait in the queue, the server's work does not change.
 * GET /api/v1/episodes must show the service's episode in that window, explained by the time
 * outside its server spans (network or queueing), not by CPU. Long tier
 * (scripts/long-tests.txt): ~110 s; its fast sibling, episodes-evidence.int, names the same cause
 * from made spans.
 */

const SCRIPT = fileURLToPath(new URL('../../demo/src/testing/cpu-service.ts', import.meta.url));
const DEMO_DIR = fileURLToPath(new URL('../../demo/', import.meta.url));
const CLI = fileURLToPath(new URL('../bin/tailscope.js', import.meta.url));
const PREFIX = 'ts-netf';
const CLIENT = { ns: `${PREFIX}-${String(process.pid)}-c`, dev: 'vc', addr: '10.127.27.1' };
const SERVER = { ns: `${PREFIX}-${String(process.pid)}-s`, dev: 'vs', addr: '10.127.27.2' };
const API = `http://${CLIENT.addr}:7070`;
const OTLP = `http://${CLIENT.addr}:4318/v1/traces`;
const SINK_PORT = 9000;
const LEAD_MS = 45_000;
const FAULT_MS = 30_000;
const TAIL_MS = 12_000;
const TBF = ['rate', '1mbit', 'burst', '8kb', 'latency', '150ms'];
const API_TOKEN = randomBytes(16).toString('hex');
const INGEST_TOKEN = randomBytes(16).toString('hex');

const ip = (...args: string[]): string => execFileSync('ip', args).toString();
const inNs = (ns: string, cmd: string, args: string[]): string =>
  execFileSync('ip', ['netns', 'exec', ns, cmd, ...args], { timeout: 60_000 }).toString();
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Kills what runs in a namespace of ours (all of it started here) and deletes it. */
function deleteNs(ns: string): void {
  try {
    for (const pid of ip('netns', 'pids', ns).split(/\s+/).filter(Boolean))
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // Already gone.
      }
    ip('netns', 'delete', ns);
  } catch {
    // Already gone.
  }
}

/** Namespaces of earlier runs whose test process died before it could delete them. */
function sweep(): void {
  for (const line of ip('netns', 'list').split('\n')) {
    const m = new RegExp(`^(${PREFIX}-(\\d+)-[cs])\\b`).exec(line);
    if (m?.[1] && m[2] && !alive(Number(m[2]))) deleteNs(m[1]);
  }
}

/** The two namespaces and the veth between them (no qdisc yet: the link is fast). */
function link(): void {
  for (const n of [CLIENT, SERVER]) {
    ip('netns', 'add', n.ns);
    ip('-n', n.ns, 'link', 'set', 'lo', 'up');
  }
  ip('-n', CLIENT.ns, 'link', 'add', CLIENT.dev, 'type', 'veth', 'peer', 'name', SERVER.dev);
  ip('-n', CLIENT.ns, 'link', 'set', SERVER.dev, 'netns', SERVER.ns);
  for (const n of [CLIENT, SERVER]) {
    ip('-n', n.ns, 'addr', 'add', `${n.addr}/30`, 'dev', n.dev);
    ip('-n', n.ns, 'link', 'set', n.dev, 'up');
  }
}

function skipReason(): string | undefined {
  if (process.platform !== 'linux') return 'needs Linux';
  if (process.getuid?.() !== 0) return 'needs root (network namespaces, tc)';
  try {
    sweep();
    link();
    inNs(CLIENT.ns, 'tc', ['qdisc', 'add', 'dev', CLIENT.dev, 'root', 'tbf', ...TBF]);
    return undefined;
  } catch (err) {
    return `needs ip netns, veth and the tbf qdisc: ${String(err).slice(0, 200)}`;
  } finally {
    deleteNs(CLIENT.ns);
    deleteNs(SERVER.ns);
  }
}
const skip = skipReason();
if (skip) console.warn(`net-fault.int.test.ts skipped: ${skip}`);

const children: ChildProcess[] = [];
let dataDir = '';
let fault = { fromMs: 0, toMs: 0 };
let startMs = 0;

/** `cmd args` inside a namespace, its own process group (stdout kept for its port line). */
function start(ns: string, cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  const child = spawn('ip', ['netns', 'exec', ns, cmd, ...args], {
    cwd: DEMO_DIR,
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  children.push(child);
  return child;
}
const node = (ns: string, args: string[], env?: NodeJS.ProcessEnv) =>
  start(ns, process.execPath, args, env);
const service = (role: string, args: string[], env?: NodeJS.ProcessEnv) =>
  node(
    role === 'service' ? SERVER.ns : CLIENT.ns,
    ['--import', 'tsx', SCRIPT, role, OTLP, ...args],
    {
      OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer%20${INGEST_TOKEN}`,
      ...env,
    },
  );

function portOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /port (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => {
      reject(new Error(`the service exited (${String(code)}) before listening`));
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const signal = (s: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, s);
    } catch {
      // Gone.
    }
  };
  signal('SIGTERM');
  const killer = setTimeout(() => {
    signal('SIGKILL');
  }, 10_000);
  await exited;
  clearTimeout(killer);
}

/** GET on Tailscope's API from inside the client namespace (the only place it listens). */
async function get<T>(path: string): Promise<T> {
  const script = `const r = await fetch(process.argv[1], { headers: { authorization: 'Bearer ' + process.argv[2] } });
if (!r.ok) { console.error(r.status, await r.text()); process.exit(1); }
process.stdout.write(await r.text());`;
  const out = inNs(CLIENT.ns, process.execPath, [
    '--input-type=module',
    '-e',
    script,
    API + path,
    API_TOKEN,
  ]);
  return Promise.resolve(JSON.parse(out) as T);
}

// A sink on the server's address, and a bulk upload to it: the congestion on the slow link.
const SINK = `const s = require('net').createServer((c) => { c.resume(); c.on('error', () => {}); });
s.listen(${String(SINK_PORT)}, process.argv[1]); setTimeout(() => process.exit(0), 600000);`;
const UPLOAD = `const c = require('net').connect(${String(SINK_PORT)}, process.argv[1]);
const buf = Buffer.alloc(65536, 7); const end = Date.now() + Number(process.argv[2]);
const pump = () => { while (Date.now() < end && c.write(buf)); if (Date.now() >= end) c.destroy(); };
c.on('connect', pump); c.on('drain', pump); c.on('error', () => {}); setTimeout(() => process.exit(0), Number(process.argv[2]) + 1000);`;

beforeAll(async () => {
  if (skip) return;
  link();
  dataDir = mkdtempSync(join(tmpdir(), 'tailscope-net-fault-'));
  node(CLIENT.ns, [CLI, 'serve', '--data-dir', dataDir, '--host', CLIENT.addr, '--port', '7070'], {
    TAILSCOPE_API_TOKENS: API_TOKEN,
    TAILSCOPE_INGEST_TOKENS: INGEST_TOKEN,
    TAILSCOPE_LOG_LEVEL: 'warn',
  });
  const until = Date.now() + 60_000;
  for (;;) {
    try {
      await get<StatsResponse>('/api/v1/stats');
      break;
    } catch (err) {
      if (Date.now() > until) throw err;
      await sleep(250);
    }
  }
  node(SERVER.ns, ['-e', SINK, SERVER.addr]);
  const port = await portOf(service('service', ['3', SERVER.addr]));
  service('caller', [String(port), '10', SERVER.addr]);
  startMs = Date.now();
  await sleep(LEAD_MS);
  inNs(CLIENT.ns, 'tc', ['qdisc', 'add', 'dev', CLIENT.dev, 'root', 'tbf', ...TBF]);
  fault = { fromMs: Date.now(), toMs: 0 };
  node(CLIENT.ns, ['-e', UPLOAD, SERVER.addr, String(FAULT_MS)]);
  await sleep(FAULT_MS);
  console.log(inNs(CLIENT.ns, 'tc', ['-s', 'qdisc', 'show', 'dev', CLIENT.dev]));
  inNs(CLIENT.ns, 'tc', ['qdisc', 'del', 'dev', CLIENT.dev, 'root']);
  fault.toMs = Date.now();
  await sleep(TAIL_MS);
  // The service and caller flush their spans and metrics on SIGTERM; then wait until the
  // stored span count stops moving.
  await Promise.all(children.slice(1).map(stop));
  let last = -1;
  for (let i = 0; i < 60; i++) {
    const { spans } = await get<StatsResponse>('/api/v1/stats');
    if (spans === last && spans > 0) break;
    last = spans;
    await sleep(2_500);
  }
}, 240_000);

afterAll(async () => {
  if (skip) return;
  await Promise.all(children.map(stop));
  deleteNs(CLIENT.ns);
  deleteNs(SERVER.ns);
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe.skipIf(skip !== undefined)('a congested slow link between a caller and a service', () => {
  it("is the service's episode, explained by the time outside its server spans", async () => {
    const body = await get<EpisodesResponse>(
      `/api/v1/episodes?from=${String(startMs - 1000)}&to=${String(Date.now() + 1000)}`,
    );
    const mine = body.episodes.filter(
      (e: ServiceEpisode) => e.service === 'cpu-svc' && e.kind !== 'edge',
    );
    console.log(
      JSON.stringify({ fault, episodes: mine.map((e) => ({ ...e, series: undefined })) }, null, 1),
    );
    const during = mine.find((e) => e.fromMs < fault.toMs && e.toMs > fault.fromMs);
    expect(during, 'an episode of cpu-svc overlapping the slow link').toBeDefined();
    expect(during?.host).toBe('svc-01');
    expect(['network-or-queueing', 'network']).toContain(during?.causeSignal);
    expect(during?.cause).toMatch(/network/);
    const spans = during?.spanEvidence;
    expect(spans?.calls ?? 0).toBeGreaterThan(50);
    // The callers' time outside the server spans grew; the server spans' own did not.
    expect(spans?.outsideMs ?? 0).toBeGreaterThan(5 * (spans?.baselineOutsideMs ?? Infinity));
    expect(spans?.serverMs ?? Infinity).toBeLessThan(1.5 * (spans?.baselineServerMs ?? 0) + 1);
  });
});
