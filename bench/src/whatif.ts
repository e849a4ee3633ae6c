// npm run bench:whatif — hedge and probation replays over 100,000 fan-outs of width 100
// (10 million calls), with bootstrap intervals. Prints the figures; not a test.
// Times are the median of RUNS runs, as CPU time of this process (user + system) and as wall
// time: on a shared machine wall time also counts waiting for a core, CPU time does not.
import {
  prepareRequestWhatIf,
  SeededRandom,
  simulateRequestWhatIf,
  simulateWhatIf,
  type EdgeTarget,
  type RequestTrees,
  type WhatIfPolicy,
} from '@tailscope/analysis';
import {
  bootstrapPercentiles,
  buildReplayIndex,
  latencyQuantile,
  replayHedge,
  synthesizeLeafCalls,
  synthesizeRequests,
} from '@tailscope/analysis/testing';
import { RequestReplayThreads, shareTrees } from '@tailscope/api';
import { microservicesTrees, tileTrees } from './microservices-trees';
import { timed, timedAsync, type Timing } from './timing';

const FANOUTS = Number(process.env.FANOUTS ?? 100_000);
const WIDTH = 100;
const HOSTS = 100;
const RUNS = Number(process.env.RUNS ?? 5);
/** Whole-request runs per policy (after one warm-up): 1 million requests take seconds each. */
const REQ_RUNS = Number(process.env.REQ_RUNS ?? 3);
const t0Ms = 1.7e12;

function median(ts: Timing[]): Timing {
  const mid = (xs: number[]): number =>
    [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  return { cpu: mid(ts.map((t) => t.cpu)), wall: mid(ts.map((t) => t.wall)) };
}
const show = (t: Timing, calls?: number): string =>
  `cpu ${t.cpu.toFixed(0).padStart(5)} ms  wall ${t.wall.toFixed(0).padStart(5)} ms` +
  (calls === undefined ? '' : `   ${(calls / t.cpu / 1e3).toFixed(1)} M calls per CPU-second`);

/** The fan-out replay figures (hedge, probation, replay noise). */
function fanoutBench(): void {
  // 500 fan-outs/s for 200 s; latency 1 + lognormal (median 2.7 ms); host 17 is 10x slower
  // from 60 s to 120 s so probation has something to do.
  const [calls, gen] = timed(() =>
    synthesizeLeafCalls({
      fanouts: FANOUTS,
      width: WIDTH,
      hosts: HOSTS,
      seed: 1,
      fanoutsPerSecond: 500,
      t0Ms,
      latencyMs: (u, h, t) => {
        const z = Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
        const base = 1 + Math.exp(1 + 0.8 * z);
        const s = (t - t0Ms) / 1000;
        return h === 17 && s >= 60 && s < 120 ? 10 * base : base;
      },
    }),
  );
  const n = calls.durationMs.length;
  console.log(
    `what-if benchmark: ${FANOUTS} fan-outs x ${WIDTH} = ${n} calls, ${HOSTS} hosts; median of ${RUNS} runs (data generated in ${gen.wall.toFixed(0)} ms)`,
  );

  const stages: Record<'index' | 'delay' | 'replay' | 'bootstrap', Timing[]> = {
    index: [],
    delay: [],
    replay: [],
    bootstrap: [],
  };
  for (let r = 0; r < RUNS; r++) {
    const [ix, tIndex] = timed(() => buildReplayIndex(calls));
    const [delay, tDelay] = timed(() => latencyQuantile(calls.durationMs, 0.95));
    const [rep, tReplay] = timed(() => replayHedge(ix, delay, 2, new SeededRandom(r)));
    const [, tBoot] = timed(() => bootstrapPercentiles(rep.allLeavesMs, new SeededRandom(r + 100)));
    stages.index.push(tIndex);
    stages.delay.push(tDelay);
    stages.replay.push(tReplay);
    stages.bootstrap.push(tBoot);
  }
  console.log('hedge at p95, by stage:');
  console.log(`  replay index (time windows)    ${show(median(stages.index))}`);
  console.log(`  delay = p95 of all latencies   ${show(median(stages.delay))}`);
  console.log(`  hedge replay                   ${show(median(stages.replay), n)}`);
  console.log(`  bootstrap, B = 2000            ${show(median(stages.bootstrap))}`);

  const policies: WhatIfPolicy[] = [{ kind: 'hedge', delayPercentile: 95 }, { kind: 'probation' }];
  for (const policy of policies) {
    const times: Timing[] = [];
    let last = simulateWhatIf(calls, policy, { seed: 0 }); // warm-up
    for (let r = 0; r < RUNS; r++) {
      const [res, t] = timed(() => simulateWhatIf(calls, policy, { seed: r }));
      times.push(t);
      last = res;
    }
    const e = last.whatIf.p99;
    console.log(`whole answer with intervals, ${policy.kind}: ${show(median(times), n)}`);
    console.log(
      `  p99 ${last.baseline.p99.toFixed(1)} -> ${e.value.toFixed(1)} [${e.low.toFixed(1)}, ${e.high.toFixed(1)}] ms, extra load ${(100 * last.extraLoad).toFixed(2)}%` +
        (last.probation
          ? `, on probation: ${last.probation.hosts.map((h) => `${h.host} ${h.seconds} s`).join(', ')}`
          : ''),
    );
  }

  // Replay noise (issue #14): the answer above pools `replays` replays; one replay alone is
  // today's cost (and noise).
  {
    const [one, t1] = timed(() =>
      simulateWhatIf(calls, { kind: 'hedge', delayPercentile: 95 }, { seed: 1, replays: 1 }),
    );
    const [pooled, tR] = timed(() =>
      simulateWhatIf(calls, { kind: 'hedge', delayPercentile: 95 }, { seed: 1 }),
    );
    console.log(
      `hedge, one replay (before issue #14): ${show(t1, n)}; pooled (${pooled.replays} replays, the default): ${show(tR, n)}`,
    );
    console.log(
      `  p99 one replay ${one.whatIf.p99.value.toFixed(2)} ms, pooled ${pooled.whatIf.p99.value.toFixed(2)} ms`,
    );
  }
}
if (process.env.ONLY !== 'requests') fanoutBench();

// Whole-request replay (issue #14), one thread, then split over THREADS worker threads
// (RequestReplayThreads: the same answer bit for bit; its CPU time counts every thread, and the
// threads are started and given the trees before the clock starts, as a server keeps its
// threads). `ONLY=requests` skips the fan-out figures above. Figures of the columnar version before the compiled plan (same machine, same inputs)
// are printed beside.
interface Case {
  policy: WhatIfPolicy;
  edge: EdgeTarget;
  /** CPU time of the first implementation, as measured. */
  before: string;
  /** Cold figures of the compiled plan before the threads (2026-11-24, load 0). */
  today: string;
}
const THREADS = Number(process.env.THREADS ?? 2);
const threads = await RequestReplayThreads.start(THREADS);
async function runRequests(label: string, trees: RequestTrees, cases: Case[]): Promise<void> {
  await threads.load(trees);
  const nodes = trees.parent.length;
  console.log(`${label}: ${trees.requestStartMs.length} requests, ${nodes} nodes`);
  for (const c of cases) {
    // Cold: the whole answer from the trees (the plan compiled inside). Warm: the plan compiled
    // once (prepareRequestWhatIf) and reused, as a slider that changes only the policy's
    // parameters does; the plan's own cost is printed beside.
    const cold: Timing[] = [];
    const warm: Timing[] = [];
    const plan: Timing[] = [];
    let r = simulateRequestWhatIf(trees, c.edge, c.policy, { seed: 1 }); // warm-up
    for (let k = 0; k < REQ_RUNS; k++) {
      const [res, t] = timed(() => simulateRequestWhatIf(trees, c.edge, c.policy, { seed: 1 }));
      cold.push(t);
      const [prepared, tp] = timed(() => prepareRequestWhatIf(trees, c.edge, c.policy));
      plan.push(tp);
      const [again, tw] = timed(() =>
        simulateRequestWhatIf(trees, c.edge, c.policy, { seed: 1, prepared }),
      );
      warm.push(tw);
      if (again.request.whatIf.p50.value !== res.request.whatIf.p50.value)
        throw new Error('the prepared plan changed the answer');
      r = res;
    }
    const split: Timing[] = [];
    const same = JSON.stringify(r);
    await threads.simulate(c.edge, c.policy, { seed: 1 }); // warm-up
    for (let k = 0; k < REQ_RUNS; k++) {
      const [res, t] = await timedAsync(() => threads.simulate(c.edge, c.policy, { seed: 1 }));
      split.push(t);
      if (JSON.stringify(res) !== same) throw new Error('the threads changed the answer');
    }
    const t = median(cold);
    const q = r.request.whatIf.p50;
    const replays = /(\d+) pooled replays/.exec(r.notes.join(' '))?.[1] ?? '?';
    console.log(
      `  ${c.policy.kind} on ${c.edge.leafService}, cold: ${show(t)}  (${(nodes / t.cpu / 1e3).toFixed(1)} M nodes per CPU-second, ${replays} replays; before, at 1M requests: ${c.before} CPU)`,
    );
    console.log(
      `    ${String(THREADS)} threads, cold: ${show(median(split))} (CPU of all threads; same answer); today's one-thread cold: ${c.today}`,
    );
    console.log(
      `    warm (plan reused): ${show(median(warm))}; compiling the plan: ${show(median(plan))}`,
    );
    console.log(
      `    request p50 ${r.request.baseline.p50.toFixed(2)} -> ${q.value.toFixed(2)} [${q.low.toFixed(2)}, ${q.high.toFixed(2)}] ms; fan-out p99 ${r.baseline.p99.toFixed(2)} -> ${r.whatIf.p99.value.toFixed(2)} ms${r.applicable ? '' : ` (not applicable: ${r.reason ?? ''})`}`,
    );
  }
}

/**
 * A slider dragged over the whole-request answer: one plan, then per position the preview the
 * dashboard's fan-out panel uses while a slider moves (one replay, 200 bootstrap resamples:
 * use-whatif.ts), and the full answer (default pooled replays, 2,000 resamples) once it rests.
 * Prints the median and the worst update.
 */
function slider(
  trees: RequestTrees,
  edge: EdgeTarget,
  first: WhatIfPolicy,
  policies: WhatIfPolicy[],
): void {
  const [prepared, tp] = timed(() => prepareRequestWhatIf(trees, edge, first));
  const times: Timing[] = [];
  for (const policy of policies)
    times.push(
      timed(() =>
        simulateRequestWhatIf(trees, edge, policy, {
          seed: 1,
          prepared,
          bootstrapSamples: 200,
          replays: 1,
        }),
      )[1],
    );
  const worst = times.reduce((a, b) => (b.wall > a.wall ? b : a));
  const last = policies[policies.length - 1] ?? first;
  const [, rest] = timed(() => simulateRequestWhatIf(trees, edge, last, { seed: 1, prepared }));
  console.log(
    `  ${first.kind} on ${edge.leafService}, ${policies.length} positions: per update ${show(median(times))}, worst ${show(worst)}; at rest ${show(rest)}; plan once ${show(tp)}`,
  );
}

{
  const REQ = Number(process.env.REQUESTS ?? 1_000_000);
  const RECORDED = Number(process.env.RECORDED ?? 5000);
  const route = { leafService: 'route', leafOperation: 'HTTP GET /route' };
  const pool: WhatIfPolicy = { kind: 'pool', workers: 10 };
  const hedge: WhatIfPolicy = { kind: 'hedge', delayPercentile: 95 };
  {
    // On shared memory, so the threads read the same columns (the one-thread answer runs on
    // them as fast as on plain ones).
    const [trees, tGen] = timed(() =>
      shareTrees(synthesizeRequests({ requests: REQ, workers: 3, seed: 1, routeHosts: 8 })),
    );
    console.log(`(HotROD-shaped trees generated in ${tGen.wall.toFixed(0)} ms)`);
    await runRequests('whole requests, HotROD-shaped (16 nodes each)', trees, [
      { policy: pool, edge: route, before: '2.6-2.8 s', today: 'cpu 4616 wall 3884 ms' },
      { policy: hedge, edge: route, before: '7.0-7.3 s', today: 'cpu ~6300 ms' },
    ]);
  }
  {
    const [ms, tGen] = timed(() => {
      const m = microservicesTrees(REQ, RECORDED);
      return { trees: shareTrees(m.trees), recorded: m.recorded };
    });
    const trees = ms.trees;
    console.log(
      `(microservices preset: ${RECORDED} requests generated, read from OTLP JSON into trees and tiled to ${trees.requestStartMs.length} in ${tGen.wall.toFixed(0)} ms)`,
    );
    await runRequests(
      `whole requests, microservices preset (${(trees.parent.length / trees.requestStartMs.length).toFixed(0)} nodes each)`,
      trees,
      [
        { policy: pool, edge: route, before: '3.0-3.5 s', today: 'cpu ~3400 ms' },
        // Hedging needs another host: route has one pod in the preset, pricing's parallel
        // fan-out has several.
        {
          policy: hedge,
          edge: { leafService: 'pricing', leafOperation: 'GET /quote' },
          before: '7.2-8.3 s',
          today: 'cpu ~4200 ms',
        },
      ],
    );
    // The dashboard slider on 100,000 requests (issue #14): the first 100,000 of the same trees.
    const SLIDER = Number(process.env.SLIDER_REQUESTS ?? 100_000);
    const part = tileTrees(ms.recorded, Math.ceil(SLIDER / RECORDED));
    console.log(`slider over the whole-request answer, ${part.requestStartMs.length} requests:`);
    slider(
      part,
      { leafService: 'pricing', leafOperation: 'GET /quote' },
      hedge,
      Array.from({ length: 20 }, (_, i) => ({ kind: 'hedge', delayPercentile: 80 + i })),
    );
    slider(
      part,
      route,
      pool,
      Array.from({ length: 20 }, (_, i) => ({ kind: 'pool', workers: i + 1 })),
    );
  }
}
await threads.close();
