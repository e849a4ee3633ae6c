// The analysis half of bench/src/validate-whatif.ts: from the recorded runs in a store, predict
// each policy with the simulator and compare with the run that had it switched on for real.
import {
  SeededRandom,
  simulateWhatIf,
  type LeafCalls,
  type WhatIfPolicy,
} from '@tailscope/analysis';
import { selectFanouts } from '@tailscope/analysis/testing';
import {
  bootstrapPercentiles,
  firstAnswerAllLeavesMs,
  latencyQuantile,
  quantileNoiseFloor,
  type WhatIfEstimate,
  type WhatIfReplay,
} from '@tailscope/analysis/testing';
import { DEFAULT_PROBATION, type RootStats, type SlowHostOption } from '@tailscope/demo';
import { loadLeafCalls, type Store } from '@tailscope/api';

export const SHARD = 'tailscope.shard';
export const SHADOW = 'tailscope.shadow';
/** The demo root's group mark in a split run (`--control-fraction`): control or treatment. */
export const ARM = 'tailscope.arm';

/** One recorded run: its analysed range (epoch ms) and the root's counters at the end. */
export interface RunRecord {
  name: string;
  /** When the load started; [startedMs, fromMs) is warm-up, left out of the comparison. */
  startedMs: number;
  fromMs: number;
  toMs: number;
  stats: RootStats | null;
  /** The hosts on probation at the end of each second of load (the root's state, polled). */
  excludedBySecond?: string[][];
  /** Recordings before excludedBySecond: seconds on probation after a 3 s warm-up. */
  outSeconds?: Record<string, number>;
}

/** Seconds each host spent on probation after the run's warm-up (polled once a second). */
export function realProbationSeconds(r: RunRecord): Record<string, number> {
  if (!r.excludedBySecond) return r.outSeconds ?? {};
  const out: Record<string, number> = {};
  r.excludedBySecond.forEach((hosts, i) => {
    if (r.startedMs + (i + 1) * 1000 <= r.fromMs) return;
    for (const h of hosts) out[h] = (out[h] ?? 0) + 1;
  });
  return out;
}

/** What the record phase saves (runs.json beside the store) for the analysis phase. */
export interface Recording {
  /**
   * 'sequential' (absent in older recordings): a policy run between two runs without it.
   * 'split': one run per policy in which the root served a random half of the fan-outs without
   * the policy (the control group), so both groups shared the machine's every moment.
   */
  design?: 'sequential' | 'split';
  hedgeDelayMs?: number;
  /** How the real root treated the losing copy (absent in older recordings: 'close'). */
  hedgeCancel?: 'discard' | 'close';
  slow?: SlowHostOption;
  runs: Record<string, RunRecord>;
}

const ns = (ms: number): bigint => BigInt(Math.round(ms)) * 1_000_000n;

/**
 * The demo's fan-out operation: the root calls `GET /shard` on the `demo-leaf` hosts (the
 * names apps/demo gives its spans). Named here rather than looked up, so this script does not
 * depend on the operations listing.
 */
export const DEMO_OPERATION = { leafService: 'demo-leaf', leafOperation: 'GET /shard' };

export async function leafCallsOf(
  store: Store,
  r: RunRecord,
  op: { leafService: string; leafOperation: string },
  withWarmup = false,
): Promise<LeafCalls> {
  const { calls } = await loadLeafCalls(
    store,
    { fromNs: ns(withWarmup ? r.startedMs : r.fromMs), toNs: ns(r.toMs), ...op },
    { attributeKeys: [SHARD, SHADOW, ARM] },
  );
  if (calls.fanoutStartMs.length === 0)
    throw new Error(`no ${op.leafService}/${op.leafOperation} fan-outs recorded in ${r.name}`);
  return calls;
}

/** A split run's two groups, by the arm mark of each fan-out's first call. */
export async function armsOf(
  store: Store,
  r: RunRecord,
  withWarmup = false,
): Promise<{ control: LeafCalls; treatment: LeafCalls }> {
  const calls = await leafCallsOf(store, r, DEMO_OPERATION, withWarmup);
  const arm = calls.attributes?.[ARM];
  const control = arm?.values.indexOf('control') ?? -1;
  if (!arm || control < 0) throw new Error(`${r.name} has no control group (${ARM} marks)`);
  const isControl = (f: number) => arm.index[calls.fanoutOffsets[f] ?? 0] === control;
  return {
    control: selectFanouts(calls, isControl),
    treatment: selectFanouts(calls, (f) => !isControl(f)),
  };
}

const fmt = (x: number): string => (Number.isFinite(x) ? x.toFixed(1) : '-');
const ci = (e: WhatIfEstimate): string => `${fmt(e.value)} [${fmt(e.low)}, ${fmt(e.high)}]`;
const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

export interface Comparison {
  title: string;
  /** Which policy, and whether predicted from a control group in the same run (split). */
  kind: 'hedge' | 'probation';
  split: boolean;
  /** (predicted - real) / real at p50, p90, p99. */
  errors: { p50: number; p90: number; p99: number };
  /** Whether the real value lies inside the predicted 95% interval. */
  inside: { p50: boolean; p90: boolean; p99: boolean };
  extraLoad: { predicted: number; real: number };
  /** How far off a perfect prediction would still land at p99 (quantileNoiseFloor, 95%). */
  noiseP99: number;
  /** The fan-outs behind it (all-leaves ms), for pooling repeated runs. */
  samples: { recorded: Float64Array; predicted: Float64Array; real: Float64Array };
}

type Percentiles = Record<'p50' | 'p90' | 'p99', number>;

/** Prints predicted vs real and returns the errors. */
function report(
  head: Omit<Comparison, 'errors' | 'inside' | 'noiseP99'>,
  baseline: Percentiles,
  predicted: Record<'p50' | 'p90' | 'p99', WhatIfEstimate>,
  realDetail: string,
): Comparison {
  const realEst = bootstrapPercentiles(head.samples.real, new SeededRandom(2));
  console.log(`\n${head.title}`);
  const cols = ['ms', 'recorded run', 'predicted [95% CI]', 'real run [95% CI]', 'error'];
  const widths = [6, 14, 26, 26, 8];
  const row = (cells: string[]): void => {
    console.log(`  ${cells.map((c, i) => c.padEnd(widths[i] ?? 8)).join(' ')}`);
  };
  row(cols);
  const errors = { p50: 0, p90: 0, p99: 0 };
  const inside = { p50: false, p90: false, p99: false };
  for (const k of ['p50', 'p90', 'p99'] as const) {
    const p = predicted[k];
    const r = realEst[k];
    errors[k] = (p.value - r.value) / r.value;
    inside[k] = r.value >= p.low && r.value <= p.high;
    row([k, fmt(baseline[k]), ci(p), ci(r), pct(errors[k])]);
  }
  const { extraLoad, samples } = head;
  console.log(
    `  extra load: predicted ${pct(extraLoad.predicted)}, real ${pct(extraLoad.real)} (${realDetail})`,
  );
  // The prediction pools R replays of the recorded fan-outs, one after the other. The
  // yardstick is for a group of the recorded size, so it splits one replay, not all R: split
  // R x n values and the floor shrinks by sqrt(R) below what a real group of n can show.
  const n = samples.recorded.length;
  const replays = Math.max(1, Math.round(samples.predicted.length / Math.max(1, n)));
  const noiseP99 = quantileNoiseFloor(samples.predicted.subarray(0, n), 0.99);
  console.log(
    `  requests: recorded ${String(n)} (replayed ${String(replays)} times, pooled), real ${String(samples.real.length)}; noise floor at p99: ${pct(noiseP99)} (two random halves of one replay, 95 of 100 splits)`,
  );
  return { ...head, errors, inside, noiseP99 };
}

/** One comparison of a replay with the real run's all-leaves times. */
export function compare(
  head: Pick<Comparison, 'title' | 'kind' | 'split'>,
  predicted: WhatIfReplay,
  recorded: Float64Array,
  real: Float64Array,
  realExtra: { value: number; detail: string },
): Comparison {
  return report(
    {
      ...head,
      extraLoad: { predicted: predicted.extraLoad, real: realExtra.value },
      samples: { recorded, predicted: predicted.allLeavesMs, real },
    },
    predicted.baseline,
    predicted.whatIf,
    realExtra.detail,
  );
}

const concat = (parts: Float64Array[]): Float64Array => {
  const out = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

/**
 * Repeated split runs of one policy taken as one larger experiment: the fan-outs of every run's
 * prediction, and of every run's treatment group, pooled (each run brings its own warm-up cut,
 * so a long experiment is many runs). Extra load is averaged weighted by requests. One p99
 * rests on 1% of the fan-outs: pooling N runs gives it N times as many.
 */
export function pooled(kind: Comparison['kind'], comps: Comparison[]): Comparison | null {
  const runs = comps.filter((c) => c.kind === kind && c.split);
  if (runs.length < 2) return null;
  const pick = (f: (c: Comparison) => Float64Array) => concat(runs.map(f));
  // Each run's prediction pools its own number of replays (enough for a fixed amount of work,
  // so fewer for a larger run). Pooled as they are, a small run would weigh as much as a large
  // one; so every run brings the same number of replays of each of its fan-outs, the least any
  // run made, and the first replays of a run (one after the other) are the ones taken.
  const replaysOf = (c: Comparison): number =>
    Math.max(1, Math.floor(c.samples.predicted.length / Math.max(1, c.samples.recorded.length)));
  const common = Math.min(...runs.map(replaysOf));
  const samples = {
    recorded: pick((c) => c.samples.recorded),
    predicted: pick((c) => c.samples.predicted.subarray(0, common * c.samples.recorded.length)),
    real: pick((c) => c.samples.real),
  };
  const weigh = (f: (c: Comparison) => number): number =>
    runs.reduce((a, c) => a + f(c) * c.samples.recorded.length, 0) / samples.recorded.length;
  const rec = samples.recorded;
  return report(
    {
      title: `${kind}: ${runs.length} split runs pooled`,
      kind,
      split: true,
      extraLoad: {
        predicted: weigh((c) => c.extraLoad.predicted),
        real: weigh((c) => c.extraLoad.real),
      },
      samples,
    },
    {
      p50: latencyQuantile(rec, 0.5),
      p90: latencyQuantile(rec, 0.9),
      p99: latencyQuantile(rec, 0.99),
    },
    // Resamples of the recorded size, not of R x n: the replays are pooled, but the interval
    // is for the requests that were recorded.
    bootstrapPercentiles(samples.predicted, new SeededRandom(1), undefined, rec.length),
    "the runs' own, weighted by requests",
  );
}

/** A split recording's runs of one policy: `name`, then `name-2`, `name-3`, ... (--repeat). */
export function repeatsOf(rec: Recording, name: string): [string, RunRecord][] {
  const out: [string, RunRecord][] = [];
  for (let i = 1; ; i++) {
    const key = i === 1 ? name : `${name}-${String(i)}`;
    const r = rec.runs[key];
    if (!r) return out;
    out.push([key, r]);
  }
}

/** All-leaves times of the fan-outs that start at or after fromMs (a recorded, unreplayed run). */
function recordedFrom(calls: LeafCalls, fromMs: number): Float64Array {
  const all = firstAnswerAllLeavesMs(calls, SHARD).allLeavesMs;
  return all.filter((_, f) => (calls.fanoutStartMs[f] ?? 0) >= fromMs);
}

/**
 * Hedge. Sequential: predicted from each unhedged run (before and after), real = the hedged
 * run. Split: for each hedged run (--repeat), predicted from its control group, real = its
 * treatment group.
 */
export async function compareHedge(store: Store, rec: Recording): Promise<Comparison[]> {
  const delayMs = rec.hedgeDelayMs;
  if (delayMs === undefined) return [];
  const out: Comparison[] = [];
  if (rec.design === 'split') {
    for (const [name, run] of repeatsOf(rec, 'hedge')) {
      const { control, treatment } = await armsOf(store, run);
      out.push(
        ...hedgeComparisons(run, delayMs, treatment, [[`the control group of ${name}`, control]], {
          real: 'its treatment group',
          split: true,
        }),
      );
    }
    return out;
  }
  const { noneA, noneB, hedge } = rec.runs;
  if (!noneA || !noneB || !hedge) return [];
  return hedgeComparisons(
    hedge,
    delayMs,
    await leafCallsOf(store, hedge, DEMO_OPERATION),
    [
      ['run 1', await leafCallsOf(store, noneA, DEMO_OPERATION)],
      ['run 3', await leafCallsOf(store, noneB, DEMO_OPERATION)],
    ],
    { real: 'run 2', split: false },
  );
}

function hedgeComparisons(
  hedge: RunRecord,
  delayMs: number,
  realCalls: LeafCalls,
  sources: [string, LeafCalls][],
  labels: { real: string; split: boolean },
): Comparison[] {
  const real = firstAnswerAllLeavesMs(realCalls, SHARD, { key: SHADOW, value: 'true' });
  const st = hedge.stats;
  // Backups sent per call in the compared range (their CLIENT spans), like the replay's count;
  // the root's counters also cover the warm-up.
  const realExtra = {
    value: real.duplicates / (real.calls - real.duplicates),
    detail: `backup spans in the range; root counters over the whole run ${st ? pct(st.hedgesSent / st.calls) : '-'}`,
  };
  return sources.map(([label, calls]) =>
    compare(
      {
        title: `hedge after ${delayMs.toFixed(2)} ms (the unhedged call p95): predicted from ${label}, real = ${labels.real}`,
        kind: 'hedge',
        split: labels.split,
      },
      simulateWhatIf(calls, { kind: 'hedge', delayMs }, { seed: 1 }),
      recordedFrom(calls, hedge.fromMs),
      real.allLeavesMs,
      realExtra,
    ),
  );
}

/** The simulator set up like the demo's own probation (apps/demo DEFAULT_PROBATION). */
export function demoProbationPolicy(): WhatIfPolicy {
  const p = DEFAULT_PROBATION;
  return {
    kind: 'probation',
    percentile: 90,
    threshold: p.factor,
    minLatencyMs: p.minLatencyMs,
    windowSeconds: p.windowMs / 1000,
    intervalSeconds: 1,
    holdSeconds: p.holdMs / 1000,
    shadowFraction: p.shadowFraction,
    maxEjectedFraction: p.maxExcludedFraction,
    // apps/demo judges a host, on probation or not, once it has 5 calls in its window.
    minCalls: 5,
    minShadowCalls: 5,
  };
}

/**
 * Probation. Sequential: predicted from each run with the slow host and no policy, real = the
 * probation run. Split: for each probation run (--repeat), predicted from its control group,
 * real = its treatment group.
 */
export async function compareProbation(store: Store, rec: Recording): Promise<Comparison[]> {
  const slow = rec.slow;
  if (!slow) return [];
  // The real tracker judged hosts from the first second of load: the replay starts there too
  // (warm-up replayed, not counted), as the API does with the window before `from`.
  const out: Comparison[] = [];
  if (rec.design === 'split') {
    for (const [name, run] of repeatsOf(rec, 'probation')) {
      // One load with the warm-up: the replay needs it, the real group is cut to the range.
      const { control, treatment } = await armsOf(store, run, true);
      const realCalls = selectFanouts(
        treatment,
        (f) => (treatment.fanoutStartMs[f] ?? 0) >= run.fromMs,
      );
      out.push(
        ...probationComparisons(
          run,
          slow,
          realCalls,
          [[`the control group of ${name}`, control, run]],
          { real: 'its treatment group', split: true },
        ),
      );
    }
    return out;
  }
  const { slowA, slowB, probation } = rec.runs;
  if (!slowA || !slowB || !probation) return [];
  return probationComparisons(
    probation,
    slow,
    await leafCallsOf(store, probation, DEMO_OPERATION),
    [
      ['run 4', await leafCallsOf(store, slowA, DEMO_OPERATION, true), slowA],
      ['run 6', await leafCallsOf(store, slowB, DEMO_OPERATION, true), slowB],
    ],
    { real: 'run 5', split: false },
  );
}

function probationComparisons(
  probation: RunRecord,
  slow: SlowHostOption,
  realCalls: LeafCalls,
  sources: [string, LeafCalls, RunRecord][],
  labels: { real: string; split: boolean },
): Comparison[] {
  const real = firstAnswerAllLeavesMs(realCalls, SHARD, { key: SHADOW, value: 'true' });
  const st = probation.stats;
  const p = DEFAULT_PROBATION;
  const out: Comparison[] = [];
  for (const [label, calls, r] of sources) {
    const predicted = simulateWhatIf(calls, demoProbationPolicy(), {
      seed: 1,
      warmupUntilMs: r.fromMs,
    });
    out.push(
      compare(
        {
          title: `probation (p90 > ${p.factor} x fleet median and > ${p.minLatencyMs} ms over ${p.windowMs / 1000} s), ${slow.host} +${slow.delayMs} ms for ${slow.forS} s: predicted from ${label}, real = ${labels.real}`,
          kind: 'probation',
          split: labels.split,
        },
        predicted,
        recordedFrom(calls, r.fromMs),
        real.allLeavesMs,
        {
          value: real.ignored / real.calls,
          detail: `shadow spans in the range; root counters over the whole run ${st ? pct(st.shadowsSent / st.calls) : '-'}`,
        },
      ),
    );
    printProbation(predicted, probation, calls.hosts.length);
  }
  return out;
}

function printProbation(predicted: WhatIfReplay, real: RunRecord, hosts: number): void {
  const list = (hs: [string, number][]): string =>
    hs
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([h, s]) => `${h} ${s}`)
      .join(', ') || 'none';
  const predictedHosts = predicted.probation?.hosts.map(
    (h) => [h.host, h.seconds] as [string, number],
  );
  console.log(`  seconds on probation, predicted: ${list(predictedHosts ?? [])}`);
  const realSeconds = realProbationSeconds(real);
  console.log(`  seconds on probation, real:      ${list(Object.entries(realSeconds))}`);
  // The root's counters were polled once a second after the warm-up.
  const polledSeconds = Math.round((real.toMs - real.fromMs) / 1000);
  const outTotal = Object.values(realSeconds).reduce((a, b) => a + b, 0);
  console.log(
    `  capacity removed: predicted ${pct(predicted.probation?.capacityRemoved ?? 0)}, real ${pct(outTotal / (hosts * polledSeconds))}`,
  );
}
