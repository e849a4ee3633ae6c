/**
 * The capacity fit: per service, instance and window, throughput, calls in flight (Little's law)
 * and the server time split into work and queue wait (FIFO k-server reconstruction); then per
 * service an M/G/k queue (k: the observed concurrency limit or a known pool size; service
 * times: the reconstructed holds) or an empirical wait-against-load curve, whichever predicts
 * the windows' mean latency better (leave-one-out for the curve).
 */

import { SeededRandom } from '../random';
import type { RequestTrees } from '../whatif';
import { indexCalls, type CallIndex } from './calls';
import { childrenOf, type Children } from './retime';
import { fitCurve, leaveOneOut, type LoadPoint, type WaitCurve } from './curve';
import { WaitHistogram } from './histogram';
import { calibrateCpu, type CpuReading } from './cpu';
import {
  concurrencyLimit,
  fifoReconstruct,
  simulateChains,
  simulateMgk,
  type Chains,
} from './queue';
import type { CapacityFit, InstanceFit, ServiceFit, WindowSums } from './types';

export interface FitOptions {
  /** Known servers per instance (a pool size), by service; else the observed limit. */
  servers?: Readonly<Record<string, number>>;
  /** Calls per instance and window aimed at (default 500): at most 12 windows. */
  callsPerWindow?: number;
  seed?: number;
  /** Runtime metrics' CPU per instance (cpu.ts): calibrate the model with them. */
  cpu?: readonly CpuReading[];
}

/** Windows per service at most, and the simulated arrivals per window (bounds the cost). */
export const MAX_WINDOWS = 12;
const MIN_SIM = 4000;
/** Simulated arrivals per instance (over its distinct loads): its tail quantiles' noise. */
const MAX_SIM = 40_000;
/** Windows of fewer calls are not scored. */
const MIN_SCORED = 20;

/** Fits every service of the trees. O(nodes log nodes + windows x simulated arrivals). */
export function fitCapacity(
  t: RequestTrees,
  o: FitOptions = {},
  ch: Children = childrenOf(t),
): CapacityFit {
  const ix = indexCalls(t, ch);
  const n = t.parent.length;
  const waitMs = new Float64Array(n);
  const holdMs = new Float64Array(n);
  const windowOf = new Int32Array(n).fill(-1);
  const visitFirst = new Uint8Array(n);
  const visitWaitMs = new Float64Array(n);
  const rng = new SeededRandom(o.seed ?? 1);
  const instances: InstanceFit[] = ix.instances.map((inst) =>
    fitInstanceQueue(
      ix,
      inst,
      o.servers?.[ix.services[inst.service]!],
      waitMs,
      holdMs,
      visitFirst,
      visitWaitMs,
    ),
  );
  const services = ix.services.map((name, s) =>
    fitService(
      ix,
      s,
      instances.filter((i) => i.service === s),
      { waitMs, holdMs, windowOf, visitFirst },
      o.callsPerWindow ?? 500,
      rng,
    ),
  );
  const fit: CapacityFit = {
    index: ix,
    instances,
    services,
    waitMs,
    holdMs,
    windowOf,
    visitFirst,
    visitWaitMs,
    trees: t,
    sims: new Map(),
  };
  if (o.cpu && o.cpu.length > 0) {
    const cpu = calibrateCpu(fit, o.cpu, o.seed ?? 1);
    if (cpu.services.size > 0) {
      fit.cpu = cpu.services;
      fit.cpuRank = cpu.rank;
    }
  }
  return fit;
}

function fitInstanceQueue(
  ix: CallIndex,
  inst: CallIndex['instances'][number],
  known: number | undefined,
  waitMs: Float64Array,
  holdMs: Float64Array,
  visitFirst: Uint8Array,
  visitWaitMs: Float64Array,
): InstanceFit {
  const m = inst.nodes.length;
  // Loops: Float64Array.from with a function calls it per value (slow in V8 at millions).
  const a = new Float64Array(m);
  const d = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    a[j] = ix.arrivalMs[inst.nodes[j]!]!;
    d[j] = ix.departureMs[inst.nodes[j]!]!;
  }
  const observed = concurrencyLimit(a, d);
  const k = Math.max(1, Math.floor(known ?? observed));
  const w = new Float64Array(m);
  const h = new Float64Array(m);
  fifoReconstruct(a, d, k, w, h);
  for (let j = 0; j < m; j++) {
    waitMs[inst.nodes[j]!] = w[j]!;
    holdMs[inst.nodes[j]!] = h[j]!;
  }
  const { holds: visitHolds, chains } = visitsOf(
    ix,
    inst.nodes,
    a,
    d,
    h,
    w,
    visitFirst,
    visitWaitMs,
  );
  return {
    service: inst.service,
    host: inst.host,
    k,
    kSource: known !== undefined ? 'pool-size' : 'observed',
    holds: h,
    visitHolds,
    visitShare: m > 0 ? visitHolds.length / m : 1,
    ...(chains ? { chains } : {}),
    gaps: new Float64Array(0),
    windows: [],
  };
}

/**
 * The instance's visits: in arrival order, a call joins a visit of its own request whose last
 * call had departed by the call's arrival (the caller sent it after the answer: a sequential
 * chain, HotROD's driver asking redis ten times), else opens a visit. A visit is served as one
 * job (its calls' holds summed): calls that wait on one another are not independent arrivals,
 * and simulated as such they would queue behind their own request. Overlapping calls of one
 * request (a parallel fan-out, a pool) are visits of their own. Marks each visit's first call
 * in `visitFirst`. O(calls x visits open per request).
 */
function visitsOf(
  ix: CallIndex,
  nodes: Uint32Array,
  a: Float64Array,
  d: Float64Array,
  h: Float64Array,
  w: Float64Array,
  visitFirst: Uint8Array,
  visitWaitMs: Float64Array,
): { holds: Float64Array; chains?: Chains } {
  const holds: number[] = [];
  const lastDeparture: number[] = [];
  const visitOf = new Int32Array(nodes.length);
  const open = new Map<number, number[]>();
  for (let j = 0; j < nodes.length; j++) {
    const q = ix.request[nodes[j]!]!;
    const mine = open.get(q);
    let v = -1;
    if (mine)
      for (const x of mine)
        if (lastDeparture[x]! <= a[j]! && (v < 0 || lastDeparture[x]! > lastDeparture[v]!)) v = x;
    if (v < 0) {
      v = holds.length;
      holds.push(0);
      lastDeparture.push(d[j]!);
      if (mine) mine.push(v);
      else open.set(q, [v]);
      visitFirst[nodes[j]!] = 1;
    }
    holds[v]! += h[j]!;
    lastDeparture[v] = Math.max(lastDeparture[v]!, d[j]!);
    visitOf[j] = v;
  }
  const V = holds.length;
  // Each visit's recorded wait (its calls' waits summed), on its first call.
  const first = new Int32Array(V).fill(-1);
  const waits = new Float64Array(V);
  for (let j = 0; j < nodes.length; j++) {
    const v = visitOf[j]!;
    if (first[v]! < 0) first[v] = nodes[j]!;
    waits[v]! += w[j]!;
  }
  for (let v = 0; v < V; v++) visitWaitMs[first[v]!] = waits[v]!;
  if (V === nodes.length) return { holds: Float64Array.from(holds) };
  // Chains: each visit's calls in order, with the caller's gap before each.
  const start = new Uint32Array(V + 1);
  for (let j = 0; j < nodes.length; j++) start[visitOf[j]! + 1]!++;
  for (let v = 0; v < V; v++) start[v + 1] = start[v + 1]! + start[v]!;
  const at = start.slice(0, V);
  const ch = new Float64Array(nodes.length);
  const gapBefore = new Float64Array(nodes.length);
  const lastEnd = new Float64Array(V).fill(Number.NaN);
  for (let j = 0; j < nodes.length; j++) {
    const v = visitOf[j]!;
    const x = at[v]!++;
    ch[x] = h[j]!;
    // The caller's time between the previous call's answer and this call's sending.
    gapBefore[x] = Number.isNaN(lastEnd[v]!) ? 0 : Math.max(0, a[j]! - lastEnd[v]!);
    lastEnd[v] = d[j]!;
  }
  return { holds: Float64Array.from(holds), chains: { start, holds: ch, gapBefore } };
}

function fitService(
  ix: CallIndex,
  s: number,
  insts: InstanceFit[],
  cols: {
    waitMs: Float64Array;
    holdMs: Float64Array;
    windowOf: Int32Array;
    visitFirst: Uint8Array;
  },
  perWindow: number,
  rng: SeededRandom,
): ServiceFit {
  let t0 = Infinity;
  let t1 = -Infinity;
  let calls = 0;
  for (const inst of ix.instances)
    if (inst.service === s)
      for (const i of inst.nodes) {
        t0 = Math.min(t0, ix.arrivalMs[i]!);
        t1 = Math.max(t1, ix.arrivalMs[i]!);
        calls++;
      }
  const W = Math.max(1, Math.min(MAX_WINDOWS, Math.floor(calls / insts.length / perWindow)));
  const span = Math.max(1e-3, t1 - t0) * (1 + 1e-9);
  const lenMs = span / W;
  const nodes = ix.instances.filter((x) => x.service === s);
  const points: LoadPoint[] = [];
  const obs: { hold: number; latency: number; weight: number; sim: number }[] = [];
  insts.forEach((inst, j) => {
    const ws = windowsOf(ix, nodes[j]!.nodes, cols, t0, lenMs, W);
    shrinkLoads(ws, lenMs);
    inst.gaps = arrivalGaps(ix, nodes[j]!.nodes, cols.windowOf, cols.visitFirst, ws);
    const mean = meanOf(inst.holds);
    const share = inst.visitShare;
    // One simulation per distinct load (a steady load, shrunk to one, is simulated once, long).
    const distinct = new Set(ws.filter((w) => w.calls > 0).map((w) => w.rate)).size;
    const nSim = Math.max(MIN_SIM, Math.min(MAX_SIM, Math.ceil(MAX_SIM / Math.max(1, distinct))));
    const byRate = new Map<number, { seed: number; waits1: WaitHistogram }>();
    for (const w of ws) {
      let sim = byRate.get(w.rate);
      if (!sim && w.calls > 0) {
        const seed = rng.uint32();
        const waits1 = inst.chains
          ? simulateChains(w.rate * share, inst.k, inst.chains, seed, nSim, nSim >> 2, inst.gaps)
          : simulateMgk(w.rate * share, inst.k, inst.visitHolds, seed, nSim, nSim >> 2, inst.gaps);
        sim = { seed, waits1 };
        byRate.set(w.rate, sim);
      }
      const waits1 = sim?.waits1 ?? new WaitHistogram().seal();
      inst.windows.push({
        ...w,
        seed: sim?.seed ?? 0,
        nSim,
        waits1,
        utilisation: (w.rate * mean) / inst.k,
      });
      if (w.calls < MIN_SCORED) continue;
      points.push({ load: w.rawRate, waitMs: w.sumWait / w.calls, weight: w.calls });
      obs.push({
        hold: w.sumHold / w.calls,
        latency: w.sumDuration / w.calls,
        weight: w.calls,
        // Per call: a visit waits once, at its first call.
        sim: waits1.mean() * share,
      });
    }
  });
  const mgkError = relError(obs.map((x) => ({ ...x, pred: x.hold + x.sim })));
  const curve = curveFit(points, obs);
  const useCurve = curve !== undefined && curve.error < mgkError;
  return {
    service: ix.services[s]!,
    instances: insts,
    windowMs: lenMs,
    model: useCurve ? 'curve' : 'mgk',
    mgkError,
    ...(curve ? { curveError: curve.error } : {}),
    fitError: useCurve ? curve.error : mgkError,
    ...(useCurve ? { curve: curve.curve } : {}),
    maxRatePerMs: Math.max(0, ...insts.flatMap((i) => i.windows.map((w) => w.rawRate))),
  };
}

/** Per window of one instance: counts and sums, and the node -> window column. */
function windowsOf(
  ix: CallIndex,
  nodes: Uint32Array,
  cols: { waitMs: Float64Array; holdMs: Float64Array; windowOf: Int32Array },
  t0: number,
  lenMs: number,
  W: number,
): WindowSums[] {
  const ws: WindowSums[] = Array.from({ length: W }, (_, w) => ({
    index: w,
    startMs: t0 + w * lenMs,
    calls: 0,
    sumDuration: 0,
    sumWait: 0,
    sumHold: 0,
    sumWork: 0,
    rate: 0,
    rawRate: 0,
  }));
  for (const i of nodes) {
    const w = Math.min(W - 1, Math.floor((ix.arrivalMs[i]! - t0) / lenMs));
    cols.windowOf[i] = w;
    const x = ws[w]!;
    x.calls++;
    x.sumDuration += ix.departureMs[i]! - ix.arrivalMs[i]!;
    x.sumWait += cols.waitMs[i]!;
    x.sumHold += cols.holdMs[i]!;
    x.sumWork += Math.max(0, ix.ownMs[i]! - cols.waitMs[i]!);
  }
  return ws;
}

/**
 * The instance's inter-arrival gaps, each in units of its window's mean gap (times the window's
 * observed rate): the recording's own arrival pattern, which the queue is simulated with rather
 * than Poisson arrivals. A load generator that sends on a schedule (HotROD's bench) queues far
 * less than Poisson arrivals at the same rate; a Poisson recording gives exponential gaps back.
 * Empty below MIN_GAPS calls (Poisson then). O(calls).
 */
function arrivalGaps(
  ix: CallIndex,
  nodes: Uint32Array,
  windowOf: Int32Array,
  visitFirst: Uint8Array,
  ws: WindowSums[],
): Float64Array {
  const firsts: number[] = [];
  for (const i of nodes) if (visitFirst[i] === 1) firsts.push(i);
  if (firsts.length < MIN_GAPS) return new Float64Array(0);
  const out = new Float64Array(firsts.length - 1);
  let sum = 0;
  for (let j = 1; j < firsts.length; j++) {
    const i = firsts[j]!;
    const w = ws[windowOf[i]!]!;
    const g = (ix.arrivalMs[i]! - ix.arrivalMs[firsts[j - 1]!]!) * w.rawRate;
    out[j - 1] = g;
    sum += g;
  }
  // Units of the mean gap exactly (the windows' edges and visits leave it near 1, not at 1).
  const mean = sum / out.length;
  if (!(mean > 0)) return new Float64Array(0);
  for (let j = 0; j < out.length; j++) out[j] = out[j]! / mean;
  return out;
}

/** Fewer calls than this on an instance: Poisson arrivals (too few gaps to read a pattern). */
const MIN_GAPS = 50;

/**
 * Window loads shrunk toward the instance's mean by the share of their spread that Poisson
 * counting noise explains (empirical Bayes): a steady load reads as one load, not as windows
 * whose random highs would each be simulated (a queue's wait is convex in load, so noise
 * alone would raise the prediction).
 */
function shrinkLoads(ws: WindowSums[], lenMs: number): void {
  const mean = ws.reduce((a, w) => a + w.calls, 0) / ws.length;
  const v = ws.reduce((a, w) => a + (w.calls - mean) ** 2, 0) / Math.max(1, ws.length - 1);
  const b = ws.length > 1 && v > 0 ? Math.max(0, 1 - mean / v) : 0;
  for (const w of ws) {
    w.rawRate = w.calls / lenMs;
    w.rate = (mean + b * (w.calls - mean)) / lenMs;
  }
}

function curveFit(
  points: LoadPoint[],
  obs: { hold: number; latency: number; weight: number }[],
): { curve: WaitCurve; error: number } | undefined {
  if (points.length < 4) return undefined;
  const loads = points.map((p) => p.load);
  if (Math.max(...loads) < 1.3 * Math.min(...loads)) return undefined;
  const loo = leaveOneOut(points);
  return {
    curve: fitCurve(points),
    error: relError(obs.map((x, i) => ({ ...x, pred: x.hold + loo[i]! }))),
  };
}

/** Call-weighted mean of |pred - latency| / latency. */
function relError(xs: { latency: number; pred: number; weight: number }[]): number {
  let num = 0;
  let den = 0;
  for (const x of xs) {
    if (!(x.latency > 0)) continue;
    num += (x.weight * Math.abs(x.pred - x.latency)) / x.latency;
    den += x.weight;
  }
  return den > 0 ? num / den : 0;
}

export function meanOf(a: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]!;
  return a.length > 0 ? s / a.length : 0;
}
