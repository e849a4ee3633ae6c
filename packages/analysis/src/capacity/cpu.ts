/**
 * CPU calibration of the capacity model (issue 29, docs/capacity.md "CPU calibration"): where
 * the services export runtime metrics (`process.cpu.utilization` per instance, and the host's
 * `system.cpu.utilization` idle share), each process's CPU is a queue of its own beside the one
 * the spans reconstruct.
 *
 * Spans alone see a queue only where calls wait behind each other on one instance. Several
 * instances may share one process (one event loop, one heap: the demo's virtual hosts), and
 * processes share cores; the metrics see both. Per process (the hosts of one service whose
 * metrics name the same `process.pid`):
 *
 * - CPU per call = the process's CPU busy (utilisation x its CPUs) / its completions;
 * - utilisation = its own share of its CPUs (`process.cpu.utilization`); the host's idle share
 *   only tells processes apart (others' use of a CPU is not taken out of a process's capacity:
 *   a scheduler shares a busy CPU among what is runnable);
 * - a FIFO queue of `cpus` servers (1 when unknown) fed Poisson arrivals at its call rate, with
 *   exponential service times of mean CPU per call (the metrics give no more than the mean),
 *   simulated at the recorded and the new load on common random numbers. Each call's wait
 *   grows by the difference of the two at one uniform rank; the call's predicted wait change is
 *   the larger of this and the span model's (two views of one wait, never added).
 *
 * Pure: the readings come from the caller (the API's metrics reader).
 */

import { SeededRandom } from '../random';
import { sortedOrder } from '../whatif';
import type { WaitHistogram } from './histogram';
import { simulateMgkPair } from './queue';
import type { CapacityFit, CpuCalibration, CpuProcess, CpuReading } from './types';

export type { CpuCalibration, CpuProcess, CpuReading } from './types';

/** Arrivals of one CPU prediction: as the span model's (predict.ts). */
const CPU_SIM = 60_000;
const MAX_CPU_SIM = 2_000_000;
const PREVIEW_CPU_SIM = 10_000;
const MAX_PREVIEW_CPU_SIM = 120_000;

/**
 * Joins the readings to the fit's instances (service and host) and groups them per process.
 * Instances without a reading, and processes of no CPU use, are left to the spans. O(calls).
 */
export function calibrateCpu(
  fit: CapacityFit,
  readings: readonly CpuReading[],
  seed = 1,
): { services: Map<number, CpuCalibration>; rank: Float64Array } {
  const out = new Map<number, CpuCalibration>();
  const rank = new Float64Array(fit.trees.parent.length);
  if (readings.length === 0) return { services: out, rank };
  const byKey = new Map<string, CpuReading>();
  for (const r of readings) byKey.set(`${r.service}\u0000${r.host}`, r);
  const rng = new SeededRandom(seed ^ 0x5bd1e995);
  fit.services.forEach((svc, s) => {
    const groups = new Map<string, { js: number[]; r: CpuReading[] }>();
    fit.instances.forEach((x, j) => {
      if (x.service !== s) return;
      const r = byKey.get(`${svc.service}\u0000${x.host}`);
      if (!r || !(r.own > 0)) return;
      const key = processKey(r, x.host, groups);
      const g = groups.get(key) ?? { js: [], r: [] };
      g.js.push(j);
      g.r.push(r);
      groups.set(key, g);
    });
    if (groups.size === 0) return;
    const spanMs = svc.windowMs * Math.max(1, svc.instances[0]?.windows.length ?? 1);
    const processes: CpuProcess[] = [];
    for (const [key, g] of groups) {
      // The process's figures: the mean over its hosts' readings (each reports the process).
      const own = g.r.reduce((a, r) => a + r.own, 0) / g.r.length;
      const cpus = Math.max(1, Math.round(g.r.find((r) => r.cpus !== undefined)?.cpus ?? 1));
      let calls = 0;
      for (const j of g.js) calls += fit.instances[j]!.holds.length;
      if (calls === 0) continue;
      const ratePerMs = calls / spanMs;
      // Its own share of its CPUs: neighbours' use is not taken out of its capacity (a
      // scheduler shares a busy CPU among what is runnable; own / (own + idle) predicted the
      // demo at 2x +258% at p50 where the run was 29% faster: docs/capacity.md).
      const utilisation = Math.min(0.999, own);
      // Service times: exponential of mean CPU per call (rate x mean / cpus = utilisation). The
      // metrics give the mean alone; the holds' shape, scaled to it (the first version), mixed
      // the CPU's work with waiting for a CPU: the demo's contended leaf holds a call 16 ms at
      // p99 for 1.4 ms of CPU on average, and that tail, put in its CPU queue, predicted the
      // demo's p99 at 2x up by a quarter at CPU utilisation 0.09 (docs/capacity.md).
      const target = (utilisation * cpus) / ratePerMs;
      const draw = new SeededRandom(rng.uint32());
      const serviceMs = new Float64Array(calls);
      for (let i = 0; i < calls; i++) serviceMs[i] = -target * Math.log(1 - draw.float());
      const holds = new Float64Array(calls);
      let at = 0;
      for (const j of g.js) {
        const h = fit.instances[j]!.holds;
        for (let i = 0; i < h.length; i++) holds[at++] = h[i]!;
      }
      // Per call, the rank of its hold among the process's calls, in (0, 1): a call that took
      // long is taken to have waited long (fit.cpuRank, per node: a preview's sample keeps it).
      const order = sortedOrder(holds);
      const node = new Uint32Array(calls);
      at = 0;
      for (const j of g.js) for (const i of fit.index.instances[j]!.nodes) node[at++] = i;
      for (let r = 0; r < calls; r++) rank[node[order[r]!]!] = (r + 0.5) / calls;
      processes.push({
        service: s,
        process: key,
        instances: g.js,
        cpus,
        ratePerMs,
        cpuMsPerCall: (own * cpus) / ratePerMs,
        utilisation,
        serviceMs,
        seed: rng.uint32(),
      });
    }
    if (processes.length > 0) out.set(s, { processes });
  });
  return { services: out, rank };
}

/**
 * The process of a reading: hosts naming one `process.pid` on CPUs that read alike (the same
 * count, idle shares within IDLE_SAME) are one process; a pid seen on other CPUs (pid 1 in
 * every container) is another process; no pid: the host is its own process.
 */
function processKey(
  r: CpuReading,
  host: string,
  groups: ReadonlyMap<string, { r: CpuReading[] }>,
): string {
  if (r.process === '') return `host:${host}`;
  for (const [key, g] of groups) {
    const f = g.r[0]!;
    if (f.process !== r.process || f.cpus !== r.cpus) continue;
    if (f.idle === undefined || r.idle === undefined || Math.abs(f.idle - r.idle) <= IDLE_SAME)
      return key;
  }
  return `pid:${r.process}/${host}`;
}

/** Idle shares of one machine's CPUs read by two hosts of one process differ by less. */
const IDLE_SAME = 0.02;

/** A process's CPU utilisation at a load factor (its own use scales, its neighbours' do not). */
export function cpuUtilisationAt(p: CpuProcess, factor: number): number {
  return p.utilisation * factor;
}

/**
 * The CPU queue's wait change of every call of a process at `factor` (its mean over the
 * process's windows' factors), into `deltaMs` as the larger of it and the span model's change.
 * The simulations are kept on the fit (as the span model's).
 */
export function cpuRewait(
  fit: CapacityFit,
  p: CpuProcess,
  factorOf: (instance: number, window: number) => number,
  deltaMs: Float64Array,
  preview: boolean,
): void {
  let sum = 0;
  let n = 0;
  for (const j of p.instances) {
    const win = fit.arrival.windowOf[j]!;
    for (let k = 0; k < win.length; k++) sum += factorOf(j, win[k]!);
    n += win.length;
  }
  const factor = n > 0 ? sum / n : 1;
  if (Math.abs(factor - 1) < 1e-12) return;
  const rho = Math.max(p.utilisation, cpuUtilisationAt(p, factor));
  if (rho >= 1) return;
  const key = `cpu/${p.service}/${p.process}/${factor}/${preview ? 'p' : 'f'}`;
  let sim = fit.sims.get(key);
  if (!sim) {
    const m = preview
      ? Math.min(MAX_PREVIEW_CPU_SIM, Math.ceil(PREVIEW_CPU_SIM / (1 - rho) ** 2))
      : Math.min(MAX_CPU_SIM, Math.ceil(CPU_SIM / (1 - rho) ** 2));
    const [from, to] = simulateMgkPair(
      p.ratePerMs,
      factor * p.ratePerMs,
      p.cpus,
      p.serviceMs,
      p.seed,
      m,
      m >> 2,
    );
    sim = { from, to };
    fit.sims.set(key, sim);
  }
  const rank = fit.cpuRank!;
  for (const j of p.instances)
    for (const i of fit.index.instances[j]!.nodes) {
      const d = cpuDelta(sim.from, sim.to, rank[i]!);
      if (Math.abs(d) > Math.abs(deltaMs[i]!)) deltaMs[i] = d;
    }
}

/** The wait change at rank u: the new load's wait less the recorded load's. */
function cpuDelta(from: WaitHistogram, to: WaitHistogram, u: number): number {
  const q = Math.min(u, 1 - 1e-12);
  return to.quantile(q) - from.quantile(q);
}
