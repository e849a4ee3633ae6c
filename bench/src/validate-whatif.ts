// Ground truth for the what-if simulator (docs/whatif.md, "Ground truth from a real cluster").
//
//   npx tsx bench/src/validate-whatif.ts [--seconds 30] [--rate 40] [--warmup 10] [--hogs 0]
//                                      [--contended-nice 0] [--hedge-cancel discard|close]
//                                      [--slow-ms 150] [--middle-policy probation|none]
//                                      [--design split|sequential]
//                                      [--only hedge|probation] [--repeat 1] [--keep]
//                                      [--reanalyze DIR[,DIR...]]
//
// Starts Tailscope (embedded store, temporary directory) and the demo cluster under an open-loop
// load, and compares what the simulator predicts for hedging and for probation (a host made slow
// for 40% of the run) with what the root's policy did for real. Two designs:
//   split (default): one run per policy in which the root serves a random half of the fan-outs
//     without the policy (the demo's --control-fraction 0.5); the simulator predicts the policy
//     from that control group and the treatment group is the real outcome. Both groups share
//     the machine's every moment, so its drift between runs drops out of the comparison. A short
//     unhedged run first measures the call p95 for the hedge delay. --repeat N runs each policy
//     N times and also compares the N runs pooled, as one N times larger experiment.
//   sequential: two A-B-A sequences, a policy run between two runs without it (so the drift of
//     a shared machine between runs shows as the two predictions' difference):
//     1. no policy -> record; predict hedging    4. no policy, slow host -> record; predict
//     2. hedging on -> compare with 1 and 3      5. probation on, slow host -> compare with 4, 6
//     3. no policy again -> record               6. no policy, slow host -> record
// Prints predicted vs real p50/p90/p99 (95% bootstrap intervals), extra load and probation time,
// and the relative errors. Bounded: split takes 60 s + 2 x repeat x seconds plus cluster starts
// and stops, sequential 6 x seconds; every child process is stopped on the way out. --keep leaves
// the store and runs.json in a directory that --reanalyze reads again without running anything;
// given several directories (comma-separated), it also pools their split runs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import cliProgress from 'cli-progress';
import { latencyQuantile } from '@tailscope/analysis/testing';
import { LoadGenerator, startCluster, type ClusterOptions } from '@tailscope/demo';
import { loadSettings, selectStats, serve, type Running } from '@tailscope/api';
import {
  compareHedge,
  compareProbation,
  DEMO_OPERATION,
  leafCallsOf,
  pooled,
  type Comparison,
  type Recording,
  type RunRecord,
} from './validate-whatif-compare';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}
/** A flag that takes one of `choices` (the first is the default). */
function choice<T extends string>(name: string, choices: readonly [T, ...T[]]): T {
  const v = flag(name, choices[0]);
  const hit = choices.find((c) => c === v);
  if (hit === undefined) throw new Error(`--${name}: one of ${choices.join(', ')}`);
  return hit;
}
const SECONDS = Number(flag('seconds', '30'));
// The first seconds of a run are left out of every comparison: connection pools filling, JIT,
// the store's first inserts and merges. Measured on a 120 s run (docs/whatif.md): the fan-out
// p90 is 2-4x its steady value for the first ~10 s, and those 6% of requests set the p99.
const WARMUP_MS = 1000 * Number(flag('warmup', '10'));
const RATE = Number(flag('rate', '40'));
const ONLY = choice('only', ['all', 'hedge', 'probation']);
// How the real root treats the losing copy (apps/demo HedgeOptions.cancel): 'close' aborts it,
// closing its HTTP/1.1 connection, which the replay does not model (docs/whatif.md).
const HEDGE_CANCEL = choice('hedge-cancel', ['discard', 'close']);
// The injected slowness of the probation runs (0: none, to see what the policy does to a fleet
// with no slow host).
const SLOW_MS = Number(flag('slow-ms', '150'));
// The policy of run 5: 'none' makes the probation sequence a placebo (three identical runs), to
// see whether the middle run differs for reasons other than the policy.
const MIDDLE_POLICY = choice('middle-policy', ['probation', 'none']);
const DESIGN = choice('design', ['split', 'sequential']);
// The split design's unhedged run that sets the hedge delay.
const CALIBRATION_SECONDS = Math.min(SECONDS, 60);
// Split design: how many runs of each policy (the p99 of one 240 s run rests on ~46 fan-outs).
const REPEAT = Number(flag('repeat', '1'));
const KEEP = process.argv.includes('--keep');
const REANALYZE = process.argv.includes('--reanalyze')
  ? flag('reanalyze', '')
      .split(',')
      .filter((d) => d !== '')
  : null;
// No CPU hog and no low-priority leaves by default: on a small machine shared with other work,
// the hog and nice 19 starve the 'contended' leaves for seconds at a time and the runs measure
// that starvation, which differs from one run to the next more than any policy does. The
// tails then come from GC, compaction, the machine's own co-tenancy and the injected slow
// host. --hogs 1 --contended-nice 19 give the demo's defaults.
const CLUSTER: Partial<ClusterOptions> = {
  hogs: Number(flag('hogs', '0')),
  contendedNice: Number(flag('contended-nice', '0')),
};
if (!(SECONDS >= 10 && SECONDS <= 900)) throw new Error('--seconds must be in 10..900');
if (!(RATE > 0 && RATE <= 500)) throw new Error('--rate must be in (0, 500]');
if (!(SLOW_MS >= 0 && SLOW_MS <= 5000)) throw new Error('--slow-ms must be in 0..5000');
if (!(Number.isInteger(REPEAT) && REPEAT >= 1 && REPEAT <= 20))
  throw new Error('--repeat must be an integer in 1..20');
if (REPEAT > 1 && DESIGN !== 'split') throw new Error('--repeat needs --design split');
if (REANALYZE?.length === 0) throw new Error('--reanalyze needs a directory');
if (!(WARMUP_MS >= 0 && WARMUP_MS <= (SECONDS - 5) * 1000))
  throw new Error('--warmup must be in 0..seconds - 5');

/** One cluster run under `opts`, with the load on for SECONDS. */
async function run(
  name: string,
  otlpUrl: string,
  opts: Partial<ClusterOptions>,
  seconds = SECONDS,
): Promise<RunRecord> {
  const cluster = await startCluster({ otlpUrl, ...CLUSTER, ...opts, log: () => undefined });
  const excludedBySecond: string[][] = [];
  const bar = new cliProgress.SingleBar(
    { format: `${name.padEnd(30)} [{bar}] {value}/{total} s  p99 {p99} ms  excluded {out}` },
    cliProgress.Presets.shades_classic,
  );
  try {
    const load = new LoadGenerator(cluster.rootUrl, RATE);
    const started = Date.now();
    load.start();
    bar.start(seconds, 0, { p99: '-', out: '-' });
    for (let s = 1; s <= seconds; s++) {
      await new Promise((r) => setTimeout(r, started + s * 1000 - Date.now()));
      const out = cluster.stats()?.excluded ?? [];
      excludedBySecond.push([...out]);
      const snap = load.snapshot();
      bar.update(s, {
        p99: Number.isFinite(snap.p99Ms) ? snap.p99Ms.toFixed(1) : '-',
        out: out.length > 0 ? String(out.length) : '-',
      });
    }
    const toMs = Date.now();
    await load.stop();
    return {
      name,
      startedMs: started,
      fromMs: started + WARMUP_MS,
      toMs,
      stats: cluster.stats(),
      excludedBySecond,
    };
  } finally {
    bar.stop();
    await cluster.stop();
  }
}

/** Waits until the store stops growing (the ingest queue drained), at most 60 s. */
async function settle(running: Running): Promise<void> {
  let last = -1;
  for (let i = 0; i < 60; i++) {
    const { spans } = await selectStats(running.store);
    if (spans === last) return;
    last = spans;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** The hedge delay: a run's call p95 in whole ms (Node's timers fire on whole-ms ticks). */
async function hedgeDelayOf(running: Running, r: RunRecord): Promise<number> {
  await settle(running);
  const calls = await leafCallsOf(running.store, r, DEMO_OPERATION);
  return Math.max(1, Math.round(latencyQuantile(calls.durationMs, 0.95)));
}

// A slow host that dominates the tail while it lasts (1 fan-out in 5 meets it): the runs then
// show what probation buys and how fast it reacts, more than the machine's noise.
const SLOW = {
  host: 'host-28', // a 'plain' leaf process: its slowness is only the injected one
  fromS: Math.round(SECONDS * 0.3),
  forS: Math.round(SECONDS * 0.4),
  delayMs: SLOW_MS,
};

/** The hedged run, at `base`'s call p95, fixed, so the real run and the replay use one delay. */
async function runHedged(
  running: Running,
  rec: Recording,
  base: RunRecord,
  name: string,
  extra: Partial<ClusterOptions> = {},
  key = 'hedge',
): Promise<void> {
  const delayMs = rec.hedgeDelayMs ?? (await hedgeDelayOf(running, base));
  rec.hedgeDelayMs = delayMs;
  rec.hedgeCancel = HEDGE_CANCEL;
  rec.runs[key] = await run(name, `${running.urls.otlpHttp}/v1/traces`, {
    policy: 'hedge',
    hedge: { delayMs, percentile: null, cancel: HEDGE_CANCEL },
    ...extra,
  });
}

/** The split design: one run per policy, half its fan-outs the control group. */
async function recordSplit(running: Running): Promise<Recording> {
  const otlpUrl = `${running.urls.otlpHttp}/v1/traces`;
  const rec: Recording = { design: 'split', runs: {} };
  const half = { controlFraction: 0.5 };
  const total = ONLY === 'all' ? 2 * REPEAT + 1 : ONLY === 'hedge' ? REPEAT + 1 : REPEAT;
  let n = 0;
  const step = (what: string): string => `${String(++n)}/${String(total)} ${what}`;
  // Repeated runs are keyed name, name-2, name-3, ... (validate-whatif-compare repeatsOf).
  const key = (name: string, i: number): string => (i === 1 ? name : `${name}-${String(i)}`);
  if (ONLY !== 'probation') {
    const calib = await run(
      step('no policy (hedge delay)'),
      otlpUrl,
      { policy: 'none' },
      CALIBRATION_SECONDS,
    );
    rec.runs.calibration = calib;
    for (let i = 1; i <= REPEAT; i++)
      await runHedged(running, rec, calib, step('hedging, half control'), half, key('hedge', i));
  }
  if (ONLY !== 'hedge') {
    rec.slow = SLOW;
    for (let i = 1; i <= REPEAT; i++) {
      rec.runs[key('probation', i)] = await run(
        step(`${MIDDLE_POLICY}, half control, slow host`),
        otlpUrl,
        { policy: MIDDLE_POLICY, slow: SLOW, ...half },
      );
    }
  }
  await settle(running);
  return rec;
}

async function record(running: Running): Promise<Recording> {
  if (DESIGN === 'split') return recordSplit(running);
  const otlpUrl = `${running.urls.otlpHttp}/v1/traces`;
  const rec: Recording = { design: 'sequential', runs: {} };
  if (ONLY !== 'probation') {
    const noneA = await run('1/6 no policy', otlpUrl, { policy: 'none' });
    rec.runs.noneA = noneA;
    await runHedged(running, rec, noneA, '2/6 hedging on');
    rec.runs.noneB = await run('3/6 no policy again', otlpUrl, { policy: 'none' });
  }
  if (ONLY !== 'hedge') {
    const slow = SLOW;
    rec.slow = slow;
    rec.runs.slowA = await run('4/6 no policy, slow host', otlpUrl, { policy: 'none', slow });
    rec.runs.probation = await run(`5/6 ${MIDDLE_POLICY} on, slow host`, otlpUrl, {
      policy: MIDDLE_POLICY,
      slow,
    });
    rec.runs.slowB = await run('6/6 no policy, slow host', otlpUrl, { policy: 'none', slow });
  }
  await settle(running);
  return rec;
}

function summarize(all: Comparison[]): void {
  if (all.length === 0) return;
  console.log('\nsummary: relative error of the prediction (predicted - real) / real');
  for (const c of all) {
    const e = (x: number): string => `${(100 * x).toFixed(1)}%`;
    const mark = (b: boolean): string => (b ? '' : ' (outside the predicted interval)');
    console.log(`  ${c.title}`);
    console.log(
      `    p50 ${e(c.errors.p50)}${mark(c.inside.p50)}, p90 ${e(c.errors.p90)}${mark(c.inside.p90)}, p99 ${e(c.errors.p99)}${mark(c.inside.p99)} (noise floor ${e(c.noiseP99)}); extra load ${e(c.extraLoad.predicted)} vs ${e(c.extraLoad.real)}`,
    );
  }
}

/** Opens the store in `dir` (recording into it, or reading a kept one) and compares. */
async function analyse(dir: string, reanalyze: boolean): Promise<Comparison[]> {
  const running = await serve(
    loadSettings({}, { dataDir: dir, port: '0', otlpHttpPort: '0', otlpGrpcPort: '0' }),
  );
  try {
    let rec: Recording;
    if (reanalyze) {
      rec = JSON.parse(readFileSync(join(dir, 'runs.json'), 'utf8')) as Recording;
      // The warm-up is chosen at analysis time: --reanalyze --warmup 20 cuts more.
      for (const r of Object.values(rec.runs)) r.fromMs = r.startedMs + WARMUP_MS;
    } else {
      rec = await record(running);
      writeFileSync(join(dir, 'runs.json'), JSON.stringify(rec, null, 2));
    }
    if (REANALYZE !== null && REANALYZE.length > 1) console.log(`\n== ${basename(dir)}`);
    const comps = [
      ...(await compareHedge(running.store, rec)),
      ...(await compareProbation(running.store, rec)),
    ];
    // In a pooled summary, say which recording each comparison came from.
    if (REANALYZE !== null && REANALYZE.length > 1)
      for (const c of comps) c.title = `${basename(dir)}: ${c.title}`;
    return comps;
  } finally {
    await running.close();
    if (KEEP || reanalyze) console.log(`\nstore and runs.json in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const all: Comparison[] = [];
  if (REANALYZE === null) {
    all.push(
      ...(await analyse(mkdtempSync(join(tmpdir(), 'tailscope-whatif-validation-')), false)),
    );
  } else {
    for (const dir of REANALYZE) all.push(...(await analyse(dir, true)));
  }
  for (const kind of ['hedge', 'probation'] as const) {
    const p = pooled(kind, all);
    if (p) all.push(p);
  }
  summarize(all);
}

await main();
