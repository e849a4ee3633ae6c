// npm run bench:whatif-cold — only the cold whole-request answers on the microservices preset
// (issue #14's 1 s target): one thread, then THREADS worker threads. Prints CPU and wall per
// run (the median of REQ_RUNS after the first answer, also printed); the full figures are in whatif.ts.
import {
  prepareRequestWhatIf,
  simulateRequestWhatIf,
  type WhatIfPolicy,
} from '@tailscope/analysis';
import { RequestReplayThreads, shareTrees } from '@tailscope/api';
import { microservicesTrees } from './microservices-trees';
import { mainThreadCpuMs, timedAsync, type Timing } from './timing';

const REQ = Number(process.env.REQUESTS ?? 1_000_000);
const RUNS = Number(process.env.REQ_RUNS ?? 3);
const THREADS = Number(process.env.THREADS ?? 2);
const ONE = process.env.ONE_THREAD !== '0';
const only = process.env.POLICY;

const mid = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? 0;
const show = (ts: Timing[]): string =>
  `cpu ${mid(ts.map((t) => t.cpu)).toFixed(0)} ms wall ${mid(ts.map((t) => t.wall)).toFixed(0)} ms` +
  ` (runs: ${ts.map((t) => `${t.cpu.toFixed(0)}/${t.wall.toFixed(0)}`).join(' ')})`;

const trees = shareTrees(microservicesTrees(REQ, 5000).trees);
const threads = await RequestReplayThreads.start(THREADS);
await threads.load(trees);
const cases: [string, { leafService: string; leafOperation: string }, WhatIfPolicy][] = [
  [
    'pool',
    { leafService: 'route', leafOperation: 'HTTP GET /route' },
    { kind: 'pool', workers: 10 },
  ],
  [
    'hedge',
    { leafService: 'pricing', leafOperation: 'GET /quote' },
    { kind: 'hedge', delayPercentile: 95 },
  ],
];
for (const [name, edge, policy] of cases) {
  if (only !== undefined && only !== name) continue;
  let same = '';
  if (ONE) {
    const one: Timing[] = [];
    same = JSON.stringify(simulateRequestWhatIf(trees, edge, policy, { seed: 1 }));
    for (let k = 0; k < RUNS; k++)
      one.push(
        (await timedAsync(() => simulateRequestWhatIf(trees, edge, policy, { seed: 1 })))[1],
      );
    console.log(`${name} 1 thread:  ${show(one)}`);
    const plan: Timing[] = [];
    for (let k = 0; k < RUNS; k++)
      plan.push((await timedAsync(() => prepareRequestWhatIf(trees, edge, policy)))[1]);
    console.log(`${name} plan alone (1 thread): ${show(plan)}`);
  }
  const two: Timing[] = [];
  const calling: number[] = [];
  // The first answer of this case: nothing of it in the threads' reused buffers yet.
  const [, first] = await timedAsync(() => threads.simulate(edge, policy, { seed: 1 }));
  for (let k = 0; k < RUNS; k++) {
    const c0 = mainThreadCpuMs();
    const [res, t] = await timedAsync(() => threads.simulate(edge, policy, { seed: 1 }));
    const c1 = mainThreadCpuMs();
    if (c0 !== undefined && c1 !== undefined) calling.push(c1 - c0);
    if (same !== '' && JSON.stringify(res) !== same) throw new Error('threads changed the answer');
    two.push(t);
  }
  // The calling thread's own CPU: the answer's serial part (the threads' work is the rest).
  const serial = calling.length > 0 ? `; calling thread cpu ${String(mid(calling))} ms` : '';
  console.log(`${name} ${String(THREADS)} threads: ${show(two)}${serial}`);
  console.log(
    `${name} ${String(THREADS)} threads, first answer: cpu ${first.cpu.toFixed(0)} ms wall ${first.wall.toFixed(0)} ms`,
  );
}
await threads.close();
