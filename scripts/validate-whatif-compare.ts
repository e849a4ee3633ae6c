// The analysis half of scripts/validate-whatif.ts: from the recorded runs in a store, predict
// each policy with the simulator and compare with the run that had it switched on for real.
import {
  bootstrapPercentiles,
  firstAnswerAllLeavesMs,
  SeededRandom,
  selectFanouts,
  simulateWhatIf,
  type LeafCalls,
  type WhatIfEstimate,
  type WhatIfPolicy,
  type WhatIfReplay,
} from '@tailscope/analysis';
import { DEFAULT_PROBATION, type RootStats, type SlowHostOption } from '@tailscope/demo';
import type { Store } from '../apps/api/src/store';
import { loadLeafCalls } from '../apps/api/src/store/fanouts';

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
  /** (predicted - real) / real at p50, p90, p99. */
  errors: { p50: number; p90: number; p99: number };
  /** Whether the real value lies inside the predicted 95% interval. */
  inside: { p50: boolean; p90: boolean; p99: boolean };
  extraLoad: { predicted: number; real: number };
}

/** Prints predicted vs real and returns the errors. */
export function compare(
  title: string,
  predicted: WhatIfReplay,
  real: Float64Array,
  realExtra: { value: number; detail: string },
): Comparison {
  const realEst = bootstrapPercentiles(real, new SeededRandom(2));
  console.log(`\n${title}`);
  const cols = ['ms', 'recorded run', 'predicted [95% CI]', 'real run [95% CI]', 'error'];
  const widths = [6, 14, 26, 26, 8];
  const row = (cells: string[]): void => {
    console.log(`  ${cells.map((c, i) => c.padEnd(widths[i] ?? 8)).join(' ')}`);
  };
  row(cols);
  const errors = { p50: 0, p90: 0, p99: 0 };
  const inside = { p50: false, p90: false, p99: false };
  for (const k of ['p50', 'p90', 'p99'] as const) {
    const p = predicted.whatIf[k];
    const r = realEst[k];
    errors[k] = (p.value - r.value) / r.value;
    inside[k] = r.value >= p.low && r.value <= p.high;
    row([k, fmt(predicted.baseline[k]), ci(p), ci(r), pct(errors[k])]);
  }
  console.log(
    `  extra load: predicted ${pct(predicted.extraLoad)}, real ${pct(realExtra.value)} (${realExtra.detail})`,
  );
  console.log(`  requests: recorded ${predicted.requests}, real ${real.length}`);
  return {
    title,
    errors,
    inside,
    extraLoad: { predicted: predicted.extraLoad, real: realExtra.value },
  };
}

/**
 * Hedge. Sequential: predicted from each unhedged run (before and after), real = the hedged
 * run. Split: predicted from the hedged run's control group, real = its treatment group.
 */
export async function compareHedge(store: Store, rec: Recording): Promise<Comparison[]> {
  const delayMs = rec.hedgeDelayMs;
  const hedge = rec.runs.hedge;
  if (!hedge || delayMs === undefined) return [];
  let realCalls: LeafCalls;
  let sources: [string, LeafCalls][];
  if (rec.design === 'split') {
    const { control, treatment } = await armsOf(store, hedge);
    realCalls = treatment;
    sources = [['its control group', control]];
  } else {
    const { noneA, noneB } = rec.runs;
    if (!noneA || !noneB) return [];
    realCalls = await leafCallsOf(store, hedge, DEMO_OPERATION);
    sources = [
      ['run 1', await leafCallsOf(store, noneA, DEMO_OPERATION)],
      ['run 3', await leafCallsOf(store, noneB, DEMO_OPERATION)],
    ];
  }
  const real = firstAnswerAllLeavesMs(realCalls, SHARD, { key: SHADOW, value: 'true' });
  const st = hedge.stats;
  // Backups sent per call in the compared range (their CLIENT spans), like the replay's count;
  // the root's counters also cover the warm-up.
  const realExtra = {
    value: real.duplicates / (real.calls - real.duplicates),
    detail: `backup spans in the range; root counters over the whole run ${st ? pct(st.hedgesSent / st.calls) : '-'}`,
  };
  const realLabel = rec.design === 'split' ? 'its treatment group' : 'run 2';
  return sources.map(([label, calls]) =>
    compare(
      `hedge after ${delayMs.toFixed(2)} ms (the unhedged call p95): predicted from ${label}, real = ${realLabel}`,
      simulateWhatIf(calls, { kind: 'hedge', delayMs }, { seed: 1 }),
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
 * probation run. Split: predicted from the probation run's control group, real = its treatment.
 */
export async function compareProbation(store: Store, rec: Recording): Promise<Comparison[]> {
  const probation = rec.runs.probation;
  if (!probation || !rec.slow) return [];
  // The real tracker judged hosts from the first second of load: the replay starts there too
  // (warm-up replayed, not counted), as the API does with the window before `from`.
  let realCalls: LeafCalls;
  let sources: [string, LeafCalls, RunRecord][];
  if (rec.design === 'split') {
    // One load with the warm-up: the replay needs it, the real group is cut to the compared range.
    const { control, treatment } = await armsOf(store, probation, true);
    realCalls = selectFanouts(
      treatment,
      (f) => (treatment.fanoutStartMs[f] ?? 0) >= probation.fromMs,
    );
    sources = [['its control group', control, probation]];
  } else {
    const { slowA, slowB } = rec.runs;
    if (!slowA || !slowB) return [];
    realCalls = await leafCallsOf(store, probation, DEMO_OPERATION);
    sources = [
      ['run 4', await leafCallsOf(store, slowA, DEMO_OPERATION, true), slowA],
      ['run 6', await leafCallsOf(store, slowB, DEMO_OPERATION, true), slowB],
    ];
  }
  const real = firstAnswerAllLeavesMs(realCalls, SHARD, { key: SHADOW, value: 'true' });
  const st = probation.stats;
  const p = DEFAULT_PROBATION;
  const realLabel = rec.design === 'split' ? 'its treatment group' : 'run 5';
  const out: Comparison[] = [];
  for (const [label, calls, r] of sources) {
    const predicted = simulateWhatIf(calls, demoProbationPolicy(), {
      seed: 1,
      warmupUntilMs: r.fromMs,
    });
    out.push(
      compare(
        `probation (p90 > ${p.factor} x fleet median and > ${p.minLatencyMs} ms over ${p.windowMs / 1000} s), ${rec.slow.host} +${rec.slow.delayMs} ms for ${rec.slow.forS} s: predicted from ${label}, real = ${realLabel}`,
        predicted,
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
