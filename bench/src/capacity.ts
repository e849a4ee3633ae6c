// npm run bench:capacity — the load and machine-count what-if (issue 29) over 100,000 requests:
// the tracegen `microservices` preset (5,000 recorded requests tiled in time) and a recording
// drawn from an M/G/3 queue. Prints the figures; not a test. Times are medians of RUNS runs,
// CPU time of this process (user + system) and wall time (a shared machine makes them differ).
import {
  prepareCapacity,
  PREVIEW_REQUESTS,
  sampleCapacity,
  simulateCapacityWhatIf,
  type CapacityChange,
  type CapacityWhatIf,
  type RequestTrees,
} from '@tailscope/analysis';
import { capacityWhatIf, logNormal, queueTrees } from '@tailscope/analysis/testing';
import { writeFileSync } from 'node:fs';
import { microservicesTrees } from './microservices-trees';
import { timed, type Timing } from './timing';

const REQUESTS = Number(process.env.REQUESTS ?? 100_000);
const RUNS = Number(process.env.RUNS ?? 3);
// ONLY=cold: the cold answers alone (the issue's target), each run printed. OUT=file.json: the
// answers (the last cold one, each prediction's, some previews') written out, to compare two
// versions to the last digit.
const COLD_ONLY = process.env.ONLY === 'cold';
const OUT = process.env.OUT;
const written: Record<string, CapacityWhatIf> = {};

function median(ts: Timing[]): Timing {
  const mid = (xs: number[]): number =>
    [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  return { cpu: mid(ts.map((t) => t.cpu)), wall: mid(ts.map((t) => t.wall)) };
}
const show = (t: Timing): string =>
  `cpu ${t.cpu.toFixed(0).padStart(5)} ms  wall ${t.wall.toFixed(0).padStart(5)} ms`;

function table(r: CapacityWhatIf): void {
  for (const s of r.services)
    console.log(
      `    ${s.service.padEnd(14)} ${s.model.padEnd(5)} k ${String(s.k).padStart(3)}  x${s.instances}->${s.instancesAfter}  ` +
        `util ${s.utilisation.toFixed(2)} -> ${s.utilisationAfter.toFixed(2)}  fit err ${(100 * s.fitError).toFixed(1)}%` +
        `${s.extrapolated ? `  extrapolated ${s.loadOverObserved.toFixed(2)}x` : ''}${s.saturated ? '  SATURATED' : ''}`,
    );
  const w = r.whatIf;
  console.log(
    `    root p50 ${r.baseline.p50.toFixed(2)} -> ${w ? `${w.p50.value.toFixed(2)} [${w.p50.low.toFixed(2)}, ${w.p50.high.toFixed(2)}]` : 'saturated'}` +
      `  p99 ${r.baseline.p99.toFixed(2)} -> ${w ? `${w.p99.value.toFixed(2)} [${w.p99.low.toFixed(2)}, ${w.p99.high.toFixed(2)}]` : 'saturated'} ms` +
      `  saturates first: ${r.saturatesFirst ?? '-'}`,
  );
}

const load = (factor: number): CapacityChange => ({ kind: 'load', factor });

function bench(name: string, trees: RequestTrees, scenarios: CapacityChange[][]): void {
  const nodes = trees.parent.length;
  console.log(`\n${name}: ${trees.nodeOffsets.length - 1} requests, ${nodes} calls and roots`);
  const cold: Timing[] = [];
  for (let i = 0; i < RUNS; i++) {
    const [r, t] = timed(() =>
      capacityWhatIf(trees, scenarios[0] ?? [], { bootstrapSamples: 1000 }),
    );
    cold.push(t);
    written[name] = r;
  }
  console.log(
    `  cold (fit + predict ${JSON.stringify(scenarios[0])}): ${show(median(cold))}; each run's CPU (wall): ${cold.map((t) => `${t.cpu.toFixed(0)} (${t.wall.toFixed(0)})`).join(', ')} ms (the first also compiles the code)`,
  );
  if (COLD_ONLY) {
    const last = written[name];
    if (last) table(last);
    return;
  }
  const [prepared, fitT] = timed(() => prepareCapacity(trees));
  console.log(`  fit alone: ${show(fitT)}`);
  for (const changes of scenarios) {
    const ts: Timing[] = [];
    let last: CapacityWhatIf | undefined;
    for (let i = 0; i < RUNS; i++) {
      const [r, t] = timed(() =>
        simulateCapacityWhatIf(prepared, changes, { bootstrapSamples: 1000 }),
      );
      ts.push(t);
      last = r;
    }
    if (last) written[`${name} ${JSON.stringify(changes)}`] = last;
    console.log(`  predict ${JSON.stringify(changes)}: ${show(median(ts))}`);
    if (last) table(last);
  }
  // The capacity page's preview (a control moving): a sample of the kept fit, made once, then
  // a new factor per update (each a new simulation: the slider's positions are new loads).
  const [sample, sampleT] = timed(() => sampleCapacity(prepared, PREVIEW_REQUESTS, 1));
  console.log(`  preview sample of ${PREVIEW_REQUESTS} requests, made once: ${show(sampleT)}`);
  const previews: Timing[] = [];
  for (let i = 0; i < 10 * RUNS; i++) {
    const [r, t] = timed(() =>
      simulateCapacityWhatIf(sample, [load(1.3 + 0.05 * i)], { bootstrapSamples: 200 }),
    );
    previews.push(t);
    if (i % 10 === 0) written[`${name} preview ${JSON.stringify(load(1.3 + 0.05 * i))}`] = r;
  }
  console.log(
    `  preview, each update a new factor (median of ${previews.length}): ${show(median(previews))}`,
  );
}

const { trees } = microservicesTrees(REQUESTS, 5000);
bench('microservices preset', trees, [
  [load(1.5)],
  [load(1.2)],
  [load(2)],
  [load(2), { kind: 'machines', service: 'route', delta: 1 }],
]);
bench(
  'M/G/3 queue (log-normal service, utilisation 0.4)',
  queueTrees({ ratePerMs: 0.12, servers: 3, service: logNormal(10, 0.8) }, REQUESTS, 7),
  [[load(1.5)], [load(1.2)], [load(2)]],
);
if (OUT !== undefined) writeFileSync(OUT, `${JSON.stringify(written, null, 1)}\n`);
