// npm run bench:faults — real injected faults on HotROD split into its services, each in its own
// network namespace, with the real `tailscope serve` receiving their traces; scores
// GET /api/v1/incidents against the labels (docs/incidents.md "Benchmark of real injected
// faults"). Not a test; needs root, `ip netns`, `tc` (netem), `taskset` and the hotrod binary.
//
// env: FAULTS (kind:target,... default the short schedule), FAULT_S (60), GAP_S (60),
// MAX_WAIT_S (longest hold for quiet before a fault, default 2 x GAP_S), RATE (dispatches/s, 2),
// BURNERS (1), DELAY_MS (100: the least delay), DELAY_PER_CALL (1: the delay in the target's
// median calls), LOSS_PCT (10), NET_FAULTS (netem | kernel | relay; default: the best that
// works), HOTROD_BIN, OUT (JSON results, default faults-<time>.json in the temp dir), LABELS.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { faultsSkipReason, hotrodPath } from './requirements';
import { runFaults } from './run';
import { parseSchedule, SHORT_SCHEDULE } from './schedule';

const num = (name: string, dflt: number): number => {
  const v = Number(process.env[name] ?? dflt);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`${name} must be a positive number`);
  return v;
};
/** Published top-1 accuracy of trace-based (and one multi-source) methods, issue 28. */
const PUBLISHED =
  'published top-1: MicroRank 0.42-0.50 (sampled traces), TraceRCA 0.66 (TrainTicket), Nezha 0.87-0.93 (traces+metrics+logs)';

async function main(): Promise<void> {
  const skip = faultsSkipReason();
  if (skip) throw new Error(`cannot run: ${skip}`);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const out = resolve(process.env.OUT ?? join(tmpdir(), `faults-${stamp}.json`));
  const labelsPath = resolve(process.env.LABELS ?? out.replace(/\.json$/, '') + '-labels.json');
  const schedule = process.env.FAULTS ? parseSchedule(process.env.FAULTS) : SHORT_SCHEDULE;
  const r = await runFaults({
    hotrod: hotrodPath(),
    tag: 'flt',
    schedule,
    faultMs: num('FAULT_S', 60) * 1000,
    gapMs: num('GAP_S', 60) * 1000,
    rate: num('RATE', 2),
    burners: num('BURNERS', 1),
    delayMs: num('DELAY_MS', 100),
    lossPercent: num('LOSS_PCT', 10),
    delayPerCall: num('DELAY_PER_CALL', 1),
    ...(process.env.MAX_WAIT_S ? { maxWaitMs: num('MAX_WAIT_S', 120) * 1000 } : {}),
    labelsPath,
    log: (line) => {
      console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
    },
  });
  console.log(`\nload: ${r.load}\nwindow ${String(r.windowSeconds)} s\n`);
  console.log('fault  target    rank  top-3 root causes                  delay s  quiet before');
  const faultLabels = r.labels.filter((l) => l.fault !== 'none');
  r.results.forEach((f, i) => {
    const l = faultLabels[i];
    console.log(
      `${f.fault.padEnd(6)} ${f.target.padEnd(9)} ${(f.detected ? String(f.rank || '-') : 'miss').padEnd(5)} ${f.top.join(', ').padEnd(34)} ${(f.delayMs === null ? '-' : (f.delayMs / 1000).toFixed(0)).padEnd(8)} ${l?.quietBefore === false ? 'no' : 'yes'}${l?.waitedMs ? ` (+${String(Math.round(l.waitedMs / 1000))} s)` : ''}${l?.measured ? `  ${l.measured}` : ''}`,
    );
  });
  console.log('\nkind   faults detected top-1 top-3 median delay s  within 2 windows');
  for (const k of r.summary)
    console.log(
      `${k.fault.padEnd(6)} ${String(k.faults).padStart(6)} ${String(k.detected).padStart(8)} ${k.top1.toFixed(2).padStart(5)} ${k.top3.toFixed(2).padStart(5)} ${(k.medianDelayMs === null ? '-' : (k.medianDelayMs / 1000).toFixed(0)).padStart(14)}  ${String(k.withinTwoWindows)}`,
    );
  const perHour = r.faultFreeMinutes > 0 ? (r.falseIncidents.length * 60) / r.faultFreeMinutes : 0;
  console.log(
    `\nfalse incidents: ${String(r.falseIncidents.length)} in ${r.faultFreeMinutes.toFixed(1)} fault-free minutes (${perHour.toFixed(1)}/h)`,
  );
  for (const f of r.falseIncidents)
    console.log(
      `  ${new Date(f.fromMs).toISOString()} ${String((f.toMs - f.fromMs) / 1000)} s: ${f.rootCauses.map((c) => c.service).join(', ')}`,
    );
  console.log(`${PUBLISHED}\n`);
  writeFileSync(out, `${JSON.stringify({ ...r, published: PUBLISHED }, null, 1)}\n`);
  console.log(`results: ${out}\nlabels: ${labelsPath}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
