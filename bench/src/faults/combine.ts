// tsx bench/src/faults/combine.ts RESULT.json... — the figures of several bench:faults runs
// together (docs/incidents.md "Figures"): every fault of every file, per kind and over all
// (top-1, top-3, detection within two windows), and the false incidents per fault-free hour.
// Files are read as written by main.ts (OUT) or rerank.ts; each fault is scored again from the
// incidents answer the run read (score.ts as it now is); nothing is left out.
import { readFileSync } from 'node:fs';
import type { RunResult } from './run';
import { delayWindows, scoreFault, summarise, type FaultResult } from './score';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: tsx bench/src/faults/combine.ts RESULT.json...');
  process.exit(2);
}
const runs = files.map((f) => ({ f, r: JSON.parse(readFileSync(f, 'utf8')) as RunResult }));
const results: FaultResult[] = [];
let falseCount = 0;
let freeMinutes = 0;
for (const { f, r } of runs) {
  const w = (r.windowSeconds || 10) * 1000;
  // Scored again from the answers as read, so every run counts by the same scoring.
  const faults = r.labels.filter((l) => l.fault !== 'none');
  r.results = faults.map((l, i) => scoreFault(l, r.answers[i]?.incidents ?? []));
  results.push(...r.results);
  falseCount += r.falseIncidents.length;
  freeMinutes += r.faultFreeMinutes;
  const ranks = r.results.map(
    (x) =>
      `${x.fault}:${x.target}=${x.detected ? String(x.rank || '-') : 'miss'}${x.delayMs === null ? '' : `@${String(delayWindows(x.delayMs, w))}w`}`,
  );
  console.log(
    `${f}: ${String(r.results.length)} faults, ${String(r.falseIncidents.length)} false in ${r.faultFreeMinutes.toFixed(1)} min; ${ranks.join(' ')}`,
  );
}
const window = (runs[0]?.r.windowSeconds ?? 10) * 1000;
console.log('\nkind   faults detected top-1 top-3 within 2 windows');
for (const k of summarise(results, window))
  console.log(
    `${k.fault.padEnd(6)} ${String(k.faults).padStart(6)} ${String(k.detected).padStart(8)} ${k.top1.toFixed(2).padStart(5)} ${k.top3.toFixed(2).padStart(5)} ${String(k.withinTwoWindows).padStart(6)}`,
  );
const net = results.filter((x) => x.fault === 'delay' || x.fault === 'loss');
const top1 = (xs: FaultResult[]) =>
  xs.length ? xs.filter((x) => x.rank === 1).length / xs.length : 0;
console.log(`network (delay + loss): ${String(net.length)} faults, top-1 ${top1(net).toFixed(2)}`);
console.log(
  `false incidents: ${String(falseCount)} in ${freeMinutes.toFixed(1)} fault-free minutes (${freeMinutes > 0 ? ((falseCount * 60) / freeMinutes).toFixed(2) : '-'}/h)`,
);
