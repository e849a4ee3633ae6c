/**
 * A capacity scenario (load and machine-count changes) applied to a fit: each instance
 * window's new load, the services' utilisation, saturation and extrapolation, and every call's
 * new queue wait.
 */

import { SeededRandom } from '../random';
import { cpuRewait, cpuUtilisationAt, type CpuCalibration } from './cpu';
import { readCurve } from './curve';
import type { WaitHistogram } from './histogram';
import { simulateChainsPair, simulateMgkPair } from './queue';
import { meanOf } from './fit';
import {
  MAX_LOAD_FACTOR,
  MAX_MACHINES,
  type CapacityChange,
  type CapacityFit,
  type ServiceFit,
} from './types';

/** Simulated arrivals of a prediction: PREDICT_SIM / (1 - utilisation)^2, at most the max. */
const PREDICT_SIM = 60_000;
const MAX_PREDICT_SIM = 4_000_000;
/** A preview fit's (sample.ts: a control being dragged): a sixth of the arrivals, at most 120,000. */
const PREVIEW_SIM = 10_000;
const MAX_PREVIEW_SIM = 120_000;
const MIN_PREVIEW_VISITS = 2000;
const MIN_CHAIN_VISITS = 20_000;
/** Simulations kept on a fit (40 KB of histograms each, two per entry). */
const MAX_CACHED_SIMS = 512;

/** A change that cannot apply (the API answers 400 naming `field`). */
export class CapacityChangeError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'CapacityChangeError';
  }
}

/** Per service, what the scenario does to it. */
export interface ServiceOutlook {
  service: string;
  model: 'mgk' | 'curve';
  fitError: number;
  /** Servers per instance (the largest k among its instances) and instances before and after. */
  k: number;
  instances: number;
  instancesAfter: number;
  /** Busiest-window utilisation (load x mean hold / k) at the recorded load and in the scenario. */
  utilisation: number;
  utilisationAfter: number;
  /** Calls per second per instance (mean), calls in flight per instance (Little's law). */
  throughputPerS: number;
  inFlight: number;
  /** Mean server time split: work (own time less the wait) and queue wait, ms. */
  workMs: number;
  waitMs: number;
  /** Some window's new load is above the highest load observed. */
  extrapolated: boolean;
  /** The new load exceeds what its servers can serve: no finite prediction. */
  saturated: boolean;
  /** Highest new load over the highest observed (1: within what was seen). */
  loadOverObserved: number;
  /**
   * The CPU calibration from runtime metrics (cpu.ts), when the service exports them: its
   * busiest process's CPU utilisation before and after, the mean CPU ms per call, the
   * processes its instances run in, and the span model's utilisation for comparison.
   */
  cpu?: {
    processes: number;
    utilisation: number;
    utilisationAfter: number;
    cpuMsPerCall: number;
    spanUtilisation: number;
  };
  /** The service's call p99, ms: recorded, and re-timed (absent when saturated). answer.ts. */
  p99Ms?: number;
  p99After?: { value: number; low: number; high: number };
}

export interface Scenario {
  services: ServiceOutlook[];
  /** The service with the highest utilisation after the changes (it saturates first). */
  saturatesFirst: string | undefined;
  saturated: string[];
  /** Per node: the change of its queue wait, ms (0 for roots and unmodelled calls). */
  deltaMs: Float64Array;
}

/** Per instance window: the factor of its load (root traffic share and machines). */
function factorsOf(fit: CapacityFit, changes: readonly CapacityChange[]): Float64Array[] {
  const load = changes.find((c) => c.kind === 'load');
  const ix = fit.index;
  const root =
    load && (load.rootService !== undefined || load.rootOperation !== undefined)
      ? (r: string) =>
          (load.rootService === undefined || r.startsWith(`${load.rootService}/`)) &&
          (load.rootOperation === undefined || r.endsWith(`/${load.rootOperation}`))
      : undefined;
  return fit.instances.map((inst, j) => {
    const W = inst.windows.length;
    const f0 = load ? load.factor : 1;
    // All traffic: every window's factor is the same (no pass over the calls).
    if (!root)
      return new Float64Array(W).fill(f0 * machinesFactor(fit.services[inst.service]!, changes));
    const calls = new Float64Array(W);
    const hit = new Float64Array(W);
    const nodes = ix.instances[j]!.nodes;
    const win = fit.arrival.windowOf[j]!;
    for (let k = 0; k < nodes.length; k++) {
      const w = win[k]!;
      calls[w]!++;
      if (root(ix.rootOf[ix.request[nodes[k]!]!]!)) hit[w]!++;
    }
    const f = load ? load.factor : 1;
    const svc = fit.services[inst.service]!;
    const machines = machinesFactor(svc, changes);
    return Float64Array.from(calls, (c, w) =>
      c > 0 ? ((c - hit[w]! + f * hit[w]!) / c) * machines : f * machines,
    );
  });
}

/** Recorded instances over new instances for a machines change of this service, else 1. */
function machinesFactor(svc: ServiceFit, changes: readonly CapacityChange[]): number {
  const n = svc.instances.length;
  for (const c of changes)
    if (c.kind === 'machines' && c.service === svc.service) return n / newCount(n, c);
  return 1;
}

function newCount(n: number, c: { count?: number; delta?: number }): number {
  return c.count ?? n + (c.delta ?? 0);
}

/** Checks the changes against the fit: bounds, known services, counts >= 1. */
export function checkChanges(fit: CapacityFit, changes: readonly CapacityChange[]): void {
  const loads = changes.filter((c) => c.kind === 'load');
  if (loads.length > 1) throw new CapacityChangeError('policy', 'give at most one load change');
  for (const l of loads)
    if (!(l.factor > 0 && l.factor <= MAX_LOAD_FACTOR))
      throw new CapacityChangeError(
        'policy.factor',
        `policy.factor must be in (0, ${MAX_LOAD_FACTOR}]`,
      );
  const seen = new Set<string>();
  for (const c of changes) {
    if (c.kind !== 'machines') continue;
    if (seen.has(c.service))
      throw new CapacityChangeError(
        'policy.service',
        `policy.service ${c.service} is changed twice`,
      );
    seen.add(c.service);
    const svc = fit.services.find((s) => s.service === c.service);
    if (!svc)
      throw new CapacityChangeError(
        'policy.service',
        `policy.service ${JSON.stringify(c.service)} answered no call in the range; services: ${fit.services.map((s) => s.service).join(', ')}`,
      );
    if ((c.count === undefined) === (c.delta === undefined))
      throw new CapacityChangeError(
        'policy.count',
        'policy.count and policy.delta exclude each other: give one',
      );
    const n = newCount(svc.instances.length, c);
    if (!(Number.isInteger(n) && n >= 1 && n <= MAX_MACHINES))
      throw new CapacityChangeError(
        c.count !== undefined ? 'policy.count' : 'policy.delta',
        `${c.service} would have ${n} instances (recorded ${svc.instances.length}); it needs 1 to ${MAX_MACHINES}`,
      );
  }
}

/**
 * The scenario: per service its outlook, and per call its new wait (M/G/k: the recorded wait's
 * quantile under the simulated 1x waits read off the simulated waits at the new load, same
 * draws; curve: the recorded wait scaled by the curve's ratio). A saturated service's calls are
 * not re-timed (no finite wait). O(windows x simulated arrivals + calls log).
 */
export function predictScenario(
  fit: CapacityFit,
  changes: readonly CapacityChange[],
  seed = 1,
): Scenario {
  checkChanges(fit, changes);
  const factors = factorsOf(fit, changes);
  const rng = new SeededRandom(seed);
  const deltaMs = new Float64Array(fit.trees.parent.length);
  const outlooks = fit.services.map((svc, s) => {
    const insts = fit.instances.map((x, j) => ({ x, j })).filter(({ x }) => x.service === s);
    let peak1 = 0;
    let peak = 0;
    let over = 0;
    for (const { x, j } of insts) {
      const mean = meanOf(x.holds);
      x.windows.forEach((w, wi) => {
        if (w.calls === 0) return;
        peak1 = Math.max(peak1, w.utilisation);
        peak = Math.max(peak, (factors[j]![wi]! * w.rate * mean) / x.k);
        over = Math.max(over, (factors[j]![wi]! * w.rawRate) / svc.maxRatePerMs);
      });
    }
    const cal = fit.cpu?.get(s);
    const cpu = cal ? cpuOutlook(fit, cal, factors, peak1) : undefined;
    const saturated = peak >= 1 || (cpu !== undefined && cpu.utilisationAfter >= 1);
    if (!saturated) {
      for (const { x, j } of insts) rewait(fit, svc, x, j, factors[j]!, rng, deltaMs);
      const at = (j: number, w: number): number => factors[j]![w] ?? 1;
      for (const p of cal?.processes ?? [])
        cpuRewait(fit, p, at, deltaMs, fit.preview !== undefined);
    }
    return {
      ...outlook(svc, changes, { peak1, peak, over, saturated }),
      ...(cpu ? { cpu } : {}),
    };
  });
  const saturated = outlooks.filter((o) => o.saturated).map((o) => o.service);
  const first = [...outlooks].sort((a, b) => busiestAfter(b) - busiestAfter(a))[0];
  return { services: outlooks, saturatesFirst: first?.service, saturated, deltaMs };
}

/** A service's highest utilisation after the changes: its span model's or its CPU's. */
export function busiestAfter(o: ServiceOutlook): number {
  return Math.max(o.utilisationAfter, o.cpu?.utilisationAfter ?? 0);
}

/** The CPU figures of a calibrated service: its busiest process, before and after. */
function cpuOutlook(
  fit: CapacityFit,
  cal: CpuCalibration,
  factors: Float64Array[],
  spanUtilisation: number,
): NonNullable<ServiceOutlook['cpu']> {
  let before = 0;
  let after = 0;
  let calls = 0;
  let cpuMs = 0;
  for (const p of cal.processes) {
    let sum = 0;
    let n = 0;
    for (const j of p.instances) {
      const win = fit.arrival.windowOf[j]!;
      for (let k = 0; k < win.length; k++) sum += factors[j]![win[k]!] ?? 1;
      n += win.length;
    }
    before = Math.max(before, p.utilisation);
    after = Math.max(after, cpuUtilisationAt(p, n > 0 ? sum / n : 1));
    const m = p.instances.reduce((a, j) => a + fit.instances[j]!.holds.length, 0);
    calls += m;
    cpuMs += m * p.cpuMsPerCall;
  }
  return {
    processes: cal.processes.length,
    utilisation: before,
    utilisationAfter: after,
    cpuMsPerCall: calls > 0 ? cpuMs / calls : 0,
    spanUtilisation,
  };
}

function outlook(
  svc: ServiceFit,
  changes: readonly CapacityChange[],
  u: { peak1: number; peak: number; over: number; saturated: boolean },
): ServiceOutlook {
  let calls = 0;
  let dur = 0;
  let wait = 0;
  let work = 0;
  for (const x of svc.instances)
    for (const w of x.windows) {
      calls += w.calls;
      dur += w.sumDuration;
      wait += w.sumWait;
      work += w.sumWork;
    }
  const spanMs = svc.windowMs * Math.max(1, svc.instances[0]?.windows.length ?? 1);
  const n = svc.instances.length;
  return {
    service: svc.service,
    model: svc.model,
    fitError: svc.fitError,
    k: Math.max(1, ...svc.instances.map((x) => x.k)),
    instances: n,
    instancesAfter: Math.round(n / machinesFactor(svc, changes)),
    utilisation: u.peak1,
    utilisationAfter: u.peak,
    throughputPerS: (calls / n / spanMs) * 1000,
    inFlight: dur / n / spanMs,
    workMs: calls > 0 ? work / calls : 0,
    waitMs: calls > 0 ? wait / calls : 0,
    extrapolated: u.over > 1 + 1e-9,
    saturated: u.saturated,
    loadOverObserved: Math.max(1, u.over),
  };
}

/** New waits of one instance's calls, as deltas. */
function rewait(
  fit: CapacityFit,
  svc: ServiceFit,
  x: CapacityFit['instances'][number],
  j: number,
  factor: Float64Array,
  rng: SeededRandom,
  deltaMs: Float64Array,
): void {
  const nodes = fit.index.instances[j]!.nodes;
  // Windows of one load and factor share their simulations (fit.ts simulates per distinct
  // load). The 1x and new-load queues run on the same draws, long enough for the new load's
  // tail: the arrivals a queue needs for a steady tail grow as 1 / (1 - utilisation)^2.
  const cache = fit.sims;
  if (cache.size > MAX_CACHED_SIMS) cache.clear();
  const mean = meanOf(x.holds);
  const sims = x.windows.map((w, wi) => {
    if (svc.model !== 'mgk' || w.calls === 0 || factor[wi] === 1) return undefined;
    const key = `${j}/${w.seed}/${factor[wi]}`;
    let sim = cache.get(key);
    if (!sim) {
      const rho = Math.max(w.utilisation, (factor[wi]! * w.rate * mean) / x.k);
      // A preview's budget counts calls: a chain of 11 calls per visit simulates a visit's
      // calls one by one (simulateChains), so it gets a visit per 11 arrivals of the budget.
      const n = fit.preview
        ? Math.max(
            MIN_PREVIEW_VISITS,
            Math.ceil(
              Math.min(MAX_PREVIEW_SIM, PREVIEW_SIM / (1 - rho) ** 2) *
                (x.chains ? x.visitShare : 1),
            ),
          )
        : x.chains
          ? // Chains: the budget in calls too, at least MIN_CHAIN_VISITS visits for the tail.
            Math.max(
              MIN_CHAIN_VISITS,
              Math.ceil(Math.min(MAX_PREDICT_SIM, PREDICT_SIM / (1 - rho) ** 2) * x.visitShare),
            )
          : Math.max(w.nSim, Math.min(MAX_PREDICT_SIM, Math.ceil(PREDICT_SIM / (1 - rho) ** 2)));
      const rate = w.rate * x.visitShare;
      const [from, to] = x.chains
        ? simulateChainsPair(rate, factor[wi]! * rate, x.k, x.chains, w.seed, n, n >> 2, x.gaps)
        : simulateMgkPair(rate, factor[wi]! * rate, x.k, x.visitHolds, w.seed, n, n >> 2, x.gaps);
      sim = { from, to };
      cache.set(key, sim);
    }
    return sim;
  });
  const curve = svc.model === 'curve' ? svc.curve : undefined;
  if (!curve && sims.every((x) => x === undefined)) return;
  if (!curve) {
    // A visit's wait (its calls' summed) changes at its first call; the calls after it follow
    // it (retime.ts), so theirs do not change. The instance's columns in arrival order.
    const first = fit.arrival.visitFirst[j]!;
    const visitWait = fit.arrival.visitWaitMs[j]!;
    const win = fit.arrival.windowOf[j]!;
    for (let k = 0; k < nodes.length; k++) {
      if (first[k] !== 1) continue;
      const sim = sims[win[k]!];
      if (!sim) continue;
      const vw = visitWait[k]!;
      deltaMs[nodes[k]!] = mapQuantile(sim.from, sim.to, vw, rng) - vw;
    }
    return;
  }
  const windowOf = fit.arrival.windowOf[j]!;
  const waitMs = fit.arrival.waitMs[j]!;
  for (let k = 0; k < nodes.length; k++) {
    const wi = windowOf[k]!;
    const w = x.windows[wi]!;
    const r = waitMs[k]!;
    const at = readCurve(curve, w.rawRate);
    const to = readCurve(curve, factor[wi]! * w.rawRate);
    deltaMs[nodes[k]!] = (at > 1e-9 ? (r * to) / at : r + to - at) - r;
  }
}

/** The wait of `to` at the rank `r` has in `from`; the atom at 0 spread uniformly over its share. */
function mapQuantile(from: WaitHistogram, to: WaitHistogram, r: number, rng: SeededRandom): number {
  const u = r > 0 ? from.rank(r) : rng.float() * from.zeroShare();
  return to.quantile(Math.min(u, 1 - 1e-12));
}
