// npm run bench:capacity-truth — issue 29's ground truth on a real cluster: `tailscope demo`
// recorded at its rate predicts its own root p50/p99 at 1.5x and 2x the rate, and with one leaf
// process fewer (its 8 virtual hosts), against real runs at those settings.
//
// Runs `tailscope demo --duration TRUTH_DURATION --rate R` on fresh data directories: at the
// base rate (TRUTH_RATE, default 15/s: `--rate auto` on 2 cores), at 1.5x and 2x, and at the base
// rate with `--leaf-processes 4` (of 5). Each run's root fan-outs after warm-up (the demo's root
// SERVER spans, as bench:demo-impact reads them) are measured from its own store. The base run's
// store then answers POST /api/v1/whatif (the real API over the embedded engine) for the load
// factors and for demo-leaf at 32 instances instead of 40. Prints predicted vs measured with the
// relative error; not a test (a 2-core machine shared with other work moves a p99 by itself:
// the load average is printed beside each run).
//
// Then HotROD recorded at a low dispatch rate against higher ones (capacity-truth-hotrod.ts).
//
// env: TRUTH_PARTS (demo,hotrod), TRUTH_DURATION (60 s), TRUTH_RATE (15), TRUTH_FACTORS
// (1.5,2), TRUTH_MACHINES (1: the run without a leaf process; 0: skip it), TRUTH_REPEAT (1: a
// second run at the base rate, the spread of two runs alike; 0: skip it); HotROD's in its file.
// TRUTH_KEEP=<file>: keep the runs' stores and write what was measured to that JSON file;
// TRUTH_REPLAY=<file>: run nothing, predict again from the kept base store against the kept
// measurements (a model change judged on the same runs, never new runs picked after the fact);
// several files (a,b,c): each series predicted, then every base against every series' runs
// and the medians (crossTable).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { WhatIfResponse } from '@tailscope/contracts';
import { buildStoreApi, openStore, sql, type Store } from '@tailscope/api';
import { freePort } from './analysis-support';
import { hotrodTruth } from './capacity-truth-hotrod';

const DURATION_S = Number(process.env.TRUTH_DURATION ?? 60);
const RATE = Number(process.env.TRUTH_RATE ?? 15);
const FACTORS = (process.env.TRUTH_FACTORS ?? '1.5,2').split(',').map(Number);
const MACHINES = process.env.TRUTH_MACHINES !== '0';
/** A second run at the base rate (predicted at 1x: the recording): the runs' own spread. */
const REPEAT = process.env.TRUTH_REPEAT !== '0';
const PARTS = (process.env.TRUTH_PARTS ?? 'demo,hotrod').split(',');
const KEEP = process.env.TRUTH_KEEP;
const REPLAY = process.env.TRUTH_REPLAY;
const BIN = resolve(import.meta.dirname, '../../apps/cli/bin/tailscope.js');
/** The demo's default leaf processes and virtual hosts per process (apps/cli/src/demo.ts). */
const LEAF_PROCESSES = 5;
const HOSTS_PER_PROCESS = 8;

interface Measured {
  dir: string;
  fromMs: number;
  toMs: number;
  n: number;
  p50: number;
  p99: number;
  load: number;
  /**
   * The machine's idle share over the run (the demo's own `system.cpu.utilization`, mode idle,
   * read by a leaf not pinned to the hogs' core: both cores): what the demo and everything else
   * on the machine left. The load average counts runnable threads; this says how much CPU
   * others took (runs of one rate differ by it, docs/capacity.md).
   */
  idle?: number;
}

/** One demo run, its store kept in `dir` (the caller removes it). */
async function demo(rate: number, extra: string[]): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), 'tailscope-truth-'));
  const port = await freePort();
  const args = [BIN, 'demo', '--duration', String(DURATION_S), '--data-dir', dir];
  args.push('--rate', String(rate), '--port', String(port));
  args.push('--otlp-http-port', '0', '--otlp-grpc-port', '0', ...extra);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let fromMs = 0;
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    for (const line of d.split('\n')) {
      if (/^demo: \d+ hosts/.test(line)) console.log(`  ${line}`);
      if (fromMs === 0 && /recording from now/.test(line)) {
        fromMs = Date.now();
        console.log(`  ${line}`);
      }
    }
  });
  const code = await new Promise<number | null>((ok) => child.once('exit', ok));
  const toMs = Date.now();
  if (code !== 0) throw new Error(`tailscope demo exited with ${String(code)}`);
  const store = openStore({ dataDir: dir, readOnly: true });
  try {
    const [r] = await store.query<{ n: string; p50: number; p99: number }>(sql`
      SELECT toString(count()) AS n,
        quantileExactInclusive(0.5)(Duration) / 1e6 AS p50,
        quantileExactInclusive(0.99)(Duration) / 1e6 AS p99
      FROM otel_traces
      WHERE ServiceName = 'demo-root' AND SpanKind IN ('Server', 'SPAN_KIND_SERVER')
        AND ParentSpanId = '' AND Timestamp >= fromUnixTimestamp64Milli(toInt64(${fromMs}))`);
    return {
      dir,
      fromMs,
      toMs,
      n: Number(r?.n ?? 0),
      p50: r?.p50 ?? NaN,
      p99: r?.p99 ?? NaN,
      load: loadavg()[0] ?? 0,
      idle: await machineIdle(store, fromMs),
    };
  } finally {
    await store.close();
  }
}

/** The mean idle share of both cores over a run, from its demo's own metrics (NaN if none). */
async function machineIdle(store: Store, fromMs: number): Promise<number> {
  const [r] = await store.query<{ idle: number | null }>(sql`
    SELECT avg(Value) AS idle FROM otel_metrics_gauge
    WHERE MetricName = 'system.cpu.utilization' AND Attributes['cpu.mode'] = 'idle'
      AND ResourceAttributes['service.name'] = 'demo-root'
      AND TimeUnix >= fromUnixTimestamp64Milli(toInt64(${fromMs}))`);
  return r?.idle ?? NaN;
}

/** A kept run's idle share, read from its store when the run predates the field. */
async function idleOf(m: Measured): Promise<number> {
  if (m.idle !== undefined) return m.idle;
  const store = openStore({ dataDir: m.dir, readOnly: true });
  try {
    return await machineIdle(store, m.fromMs);
  } finally {
    await store.close();
  }
}

/** The root operation's name (the leaf a whole-request what-if names to take all requests). */
async function rootOperation(store: Store): Promise<string> {
  const [r] = await store.query<{ name: string }>(sql`
    SELECT SpanName AS name FROM otel_traces
    WHERE ServiceName = 'demo-root' AND ParentSpanId = '' LIMIT 1`);
  if (!r) throw new Error('no root span recorded');
  return r.name;
}

const rel = (got: number, want: number): string => {
  const e = (got / want - 1) * 100;
  return `${e >= 0 ? '+' : ''}${e.toFixed(1)}%`;
};

interface Truth {
  label: string;
  m: Measured;
  body: object;
}

interface Kept {
  base: Measured;
  truths: Truth[];
}

async function demoRuns(): Promise<Kept> {
  console.log(
    `bench:capacity-truth: demo --duration ${DURATION_S} at ${RATE}/s, x${FACTORS.join(', x')}${MACHINES ? `, and --leaf-processes ${LEAF_PROCESSES - 1}` : ''}`,
  );
  console.log(`\nbase run: ${RATE}/s`);
  const base = await demo(RATE, []);
  console.log(
    `  measured ${base.n} root fan-outs: p50 ${base.p50.toFixed(2)} ms, p99 ${base.p99.toFixed(2)} ms (load average ${base.load.toFixed(1)}, machine idle ${(base.idle ?? NaN).toFixed(2)})`,
  );
  const truths: Truth[] = [];
  const kept = { base, truths };
  try {
    if (REPEAT) {
      console.log(`\nthe base run again: ${RATE}/s (the spread of two runs alike)`);
      const m = await demo(RATE, []);
      console.log(
        `  measured ${m.n}: p50 ${m.p50.toFixed(2)} ms, p99 ${m.p99.toFixed(2)} ms (load average ${m.load.toFixed(1)}, machine idle ${(m.idle ?? NaN).toFixed(2)})`,
      );
      truths.push({
        label: 'x1 (a second base run)',
        m,
        body: { policy: { kind: 'load', factor: 1 } },
      });
    }
    for (const f of FACTORS) {
      console.log(`\nrun at x${f}: ${RATE * f}/s`);
      const m = await demo(RATE * f, []);
      console.log(
        `  measured ${m.n}: p50 ${m.p50.toFixed(2)} ms, p99 ${m.p99.toFixed(2)} ms (load average ${m.load.toFixed(1)}, machine idle ${(m.idle ?? NaN).toFixed(2)})`,
      );
      truths.push({ label: `x${f} traffic`, m, body: { policy: { kind: 'load', factor: f } } });
    }
    if (MACHINES) {
      console.log(`\nrun without a leaf process: --leaf-processes ${LEAF_PROCESSES - 1}`);
      const m = await demo(RATE, ['--leaf-processes', String(LEAF_PROCESSES - 1)]);
      console.log(
        `  measured ${m.n}: p50 ${m.p50.toFixed(2)} ms, p99 ${m.p99.toFixed(2)} ms (load average ${m.load.toFixed(1)}, machine idle ${(m.idle ?? NaN).toFixed(2)})`,
      );
      truths.push({
        label: `demo-leaf ${(LEAF_PROCESSES - 1) * HOSTS_PER_PROCESS} of ${LEAF_PROCESSES * HOSTS_PER_PROCESS} hosts`,
        m,
        body: {
          policy: {
            kind: 'machines',
            service: 'demo-leaf',
            count: (LEAF_PROCESSES - 1) * HOSTS_PER_PROCESS,
          },
        },
      });
    }
  } catch (e) {
    dropRuns(kept);
    throw e;
  }
  return kept;
}

function dropRuns(k: Kept): void {
  for (const d of [k.base.dir, ...k.truths.map((t) => t.m.dir)])
    rmSync(d, { recursive: true, force: true });
}

/** One prediction of a base run against one kept run (its label's setting). */
interface Predicted {
  label: string;
  m: Measured;
  p50: number;
  p99: number;
}

async function demoPredict({ base, truths }: Kept): Promise<Predicted[]> {
  const out: Predicted[] = [];
  // Kept runs from before the field: read from each store first (one store open at a time).
  for (const m of [base, ...truths.map((t) => t.m)]) m.idle = await idleOf(m);
  const store = openStore({ dataDir: base.dir, readOnly: true });
  const api = await buildStoreApi(store);
  try {
    const op = await rootOperation(store);
    console.log(
      `\npredicted from the base run (requests holding demo-root ${op}, ${new Date(base.fromMs).toISOString()} on)`,
    );
    console.log(
      `(the base run: ${base.n} fan-outs, p50 ${base.p50.toFixed(2)}, p99 ${base.p99.toFixed(2)} ms, load average ${base.load.toFixed(1)}, machine idle ${(base.idle ?? NaN).toFixed(2)})`,
    );
    console.log(
      '| change | p50 predicted [95%] | p50 measured | error | p99 predicted [95%] | p99 measured | error | load avg | machine idle |',
    );
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    // Removing a leaf process removes its 8 hosts (the last role's: host-33 ... host-40): as a
    // machine count alone (the load spread over the identical instances left, each call kept on
    // its host), and as that count with the avoid-hosts replay moving the removed hosts' calls
    // to the hosts left (their own latency at the new load), over the leaf edge's requests.
    const removed = Array.from(
      { length: HOSTS_PER_PROCESS },
      (_, i) => `host-${String((LEAF_PROCESSES - 1) * HOSTS_PER_PROCESS + i + 1).padStart(2, '0')}`,
    );
    const variants = truths.flatMap((t) => {
      const m = (t.body as { policy?: { kind: string } }).policy;
      if (m?.kind !== 'machines') return [t];
      return [
        t,
        {
          label: `${t.label}, their calls moved (avoid-hosts)`,
          m: t.m,
          body: {
            leafService: 'demo-leaf',
            leafOperation: 'GET /shard',
            capacity: [m],
            policy: { kind: 'avoid-hosts', hosts: removed },
          },
        },
      ];
    });
    for (const t of variants) {
      const res = await api.inject({
        method: 'POST',
        url: '/api/v1/whatif',
        payload: {
          leafService: 'demo-root',
          leafOperation: op,
          from: base.fromMs,
          to: base.toMs,
          ...t.body,
        },
      });
      if (res.statusCode !== 200) {
        console.log(`| ${t.label} | ${res.statusCode}: ${res.body.slice(0, 200)} |`);
        continue;
      }
      const a = res.json<WhatIfResponse>();
      // With a replay policy the prediction is its whole-request answer at the new load.
      const replayed = (t.body as { capacity?: unknown }).capacity !== undefined;
      const w = replayed ? a.request?.whatIf : a.capacity?.request.whatIf;
      const b = a.capacity?.request.baseline;
      if (!w || !b) {
        console.log(`| ${t.label} | not predicted: ${a.reason ?? ''} |`);
        continue;
      }
      const e = (x: { value: number; low: number; high: number }) =>
        `${x.value.toFixed(2)} [${x.low.toFixed(2)}, ${x.high.toFixed(2)}]`;
      out.push({ label: t.label, m: t.m, p50: w.p50.value, p99: w.p99.value });
      console.log(
        `| ${t.label} | ${e(w.p50)} | ${t.m.p50.toFixed(2)} | ${rel(w.p50.value, t.m.p50)} | ${e(w.p99)} | ${t.m.p99.toFixed(2)} | ${rel(w.p99.value, t.m.p99)} | ${t.m.load.toFixed(1)} | ${(t.m.idle ?? NaN).toFixed(2)} |`,
      );
      for (const s of a.capacity?.services ?? [])
        console.log(
          `    ${s.service}: ${s.model} k ${s.k} x${s.instances}->${s.instancesAfter} util ${s.utilisation.toFixed(2)} -> ${s.utilisationAfter.toFixed(2)} wait ${s.waitMs.toFixed(2)} ms fit err ${(100 * s.fitError).toFixed(1)}%${s.extrapolated ? ` extrapolated ${s.loadOverObserved.toFixed(2)}x` : ''}${s.cpu ? `; CPU (metrics) ${s.cpu.processes} processes, ${s.cpu.cpuMsPerCall.toFixed(2)} ms/call, util ${s.cpu.utilisation.toFixed(2)} -> ${s.cpu.utilisationAfter.toFixed(2)}` : ''}`,
        );
      console.log(`    (recorded root p50 ${b.p50.toFixed(2)}, p99 ${b.p99.toFixed(2)} ms)`);
    }
  } finally {
    await api.close();
    await store.close();
  }
  return out;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const h = s.length >> 1;
  const hi = s[h] ?? NaN;
  return s.length % 2 === 1 ? hi : ((s[h - 1] ?? NaN) + hi) / 2;
};

/**
 * Several kept series (TRUTH_REPLAY=a.json,b.json,...): every base predicts every series' run
 * of each setting (a recording is one draw of the runs' spread, and so is each run measured),
 * then the medians: the base runs' and each setting's runs' (each with its range), and the
 * median prediction against the median run.
 */
function crossTable(series: Kept[], predicted: Predicted[][]): void {
  const labels = [...new Set(predicted.flat().map((p) => p.label))];
  const show = (xs: number[]) =>
    `${xs.map((x) => x.toFixed(2)).join(', ')} (median ${median(xs).toFixed(2)}, range ${(100 * (Math.max(...xs) / Math.min(...xs) - 1)).toFixed(0)}%)`;
  console.log(`\nevery base against every run (${series.length} series):`);
  console.log(`  base runs: p50 ${show(series.map((k) => k.base.p50))}`);
  console.log(`             p99 ${show(series.map((k) => k.base.p99))}`);
  console.log(
    `             machine idle ${series.map((k) => (k.base.idle ?? NaN).toFixed(2)).join(', ')}`,
  );
  for (const label of labels) {
    const runs = series.flatMap((k, i) =>
      (predicted[i] ?? [])
        .filter((p) => p.label === label)
        .slice(0, 1)
        .map((p) => p.m),
    );
    const preds = predicted.map((ps) => ps.find((p) => p.label === label));
    console.log(`
${label}:`);
    console.log(`  runs: p50 ${show(runs.map((m) => m.p50))}`);
    console.log(`        p99 ${show(runs.map((m) => m.p99))}`);
    console.log(`        machine idle ${runs.map((m) => (m.idle ?? NaN).toFixed(2)).join(', ')}`);
    console.log(
      '  | base | p50 predicted | errors against each run | p99 predicted | errors against each run |',
    );
    preds.forEach((p, i) => {
      if (!p) return;
      console.log(
        `  | ${i + 1} | ${p.p50.toFixed(2)} | ${runs.map((m) => rel(p.p50, m.p50)).join(' ')} | ${p.p99.toFixed(2)} | ${runs.map((m) => rel(p.p99, m.p99)).join(' ')} |`,
      );
    });
    const ok = preds.filter((p): p is Predicted => p !== undefined);
    if (ok.length === 0) continue;
    const p50 = median(ok.map((p) => p.p50));
    const p99 = median(ok.map((p) => p.p99));
    const r50 = median(runs.map((m) => m.p50));
    const r99 = median(runs.map((m) => m.p99));
    console.log(
      `  median prediction against the median run: p50 ${p50.toFixed(2)} vs ${r50.toFixed(2)} (${rel(p50, r50)}), p99 ${p99.toFixed(2)} vs ${r99.toFixed(2)} (${rel(p99, r99)})`,
    );
  }
}

async function demoTruth(): Promise<void> {
  if (REPLAY) {
    const series = REPLAY.split(',').map((f) => JSON.parse(readFileSync(f, 'utf8')) as Kept);
    const predicted: Predicted[][] = [];
    for (const k of series) predicted.push(await demoPredict(k));
    if (series.length > 1) crossTable(series, predicted);
    return;
  }
  const kept = await demoRuns();
  if (KEEP) {
    writeFileSync(KEEP, JSON.stringify(kept, null, 2));
    console.log(`\nstores kept; measurements in ${KEEP} (TRUTH_REPLAY=${KEEP} predicts again)`);
  }
  try {
    await demoPredict(kept);
  } finally {
    if (!KEEP) dropRuns(kept);
  }
}

if (PARTS.includes('demo')) await demoTruth();
if (PARTS.includes('hotrod')) await hotrodTruth();
