/**
 * The capacity fit: per service, instance and window, throughput, calls in flight (Little's law)
 * and the server time split into work and queue wait (FIFO k-server reconstruction); then per
 * service an M/G/k queue (k: the observed concurrency limit or a known pool size; service
 * times: the reconstructed holds) or an empirical wait-against-load curve, whichever predicts
 * the windows' mean latency better (leave-one-out for the curve).
 */

import { SeededRandom } from '../random';
import type { RequestTrees } from '../whatif';
import { indexCalls, ownTime, type CallIndex } from './calls';
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
import type {
  ArrivalColumns,
  CapacityFit,
  InstanceFit,
  NodeColumns,
  ServiceFit,
  WindowSums,
} from './types';

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
  const { index: ix, local } = indexCalls(t);
  const scratch: VisitScratch = {
    head: new Int32Array(t.nodeOffsets.length - 1).fill(-1),
    touched: new Uint32Array(0),
    nextOpen: new Int32Array(0),
    lastDeparture: new Float64Array(0),
    holdSum: new Float64Array(0),
    waitSum: new Float64Array(0),
    firstOf: new Int32Array(0),
    visitOf: new Int32Array(0),
  };
  const rng = new SeededRandom(o.seed ?? 1);
  // Each instance's calls as contiguous columns in arrival order, gathered once: the passes
  // below read them in order (gathering per pass from the per-node columns cost a cache miss
  // per call per pass: seconds at 3M calls). Gathered in node order: a pass per instance in
  // arrival order reads every cache line of a per-node column once per instance (0.2 s at 3M
  // calls). The fit's per-call results stay in these columns (fit.arrival), not per node.
  const cols = gather(t, ch, ix, local);
  const fitted = ix.instances.map((inst, j) =>
    fitInstanceQueue(cols[j]!, inst, o.servers?.[ix.services[inst.service]!], scratch),
  );
  const instances = fitted.map((f) => f.fit);
  const services = ix.services.map((_, s) => {
    const js: number[] = [];
    ix.instances.forEach((x, j) => {
      if (x.service === s) js.push(j);
    });
    return fitService(
      ix,
      s,
      js.map((j) => ({ fit: instances[j]!, col: cols[j]!, tmp: fitted[j]! })),
      o.callsPerWindow ?? 500,
      rng,
    );
  });
  const fit: CapacityFit = {
    index: ix,
    instances,
    services,
    // The instances' own columns (arrival order), kept as made.
    arrival: {
      waitMs: fitted.map((f) => f.w),
      windowOf: fitted.map((f) => f.win),
      visitFirst: fitted.map((f) => f.first),
      visitWaitMs: fitted.map((f) => f.visitWait),
    },
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

/** Per-node columns to per instance, in arrival order (a preview's sample: sample.ts). */
export function arrivalColumns(ix: CallIndex, node: NodeColumns): ArrivalColumns {
  const take = <A extends Uint8Array | Float64Array | Int32Array>(
    from: A,
    to: A,
    nodes: Uint32Array,
  ): A => {
    for (let k = 0; k < nodes.length; k++) to[k] = from[nodes[k]!]!;
    return to;
  };
  const per = <A extends Uint8Array | Float64Array | Int32Array>(
    from: A,
    make: (m: number) => A,
  ): A[] => ix.instances.map((x) => take(from, make(x.nodes.length), x.nodes));
  return {
    waitMs: per(node.waitMs, (m) => new Float64Array(m)),
    windowOf: per(node.windowOf, (m) => new Int32Array(m)),
    visitFirst: per(node.visitFirst, (m) => new Uint8Array(m)),
    visitWaitMs: per(node.visitWaitMs, (m) => new Float64Array(m)),
  };
}

/** The fit's arrival columns per node (-1 window and 0 elsewhere for roots): sample.ts. */
export function nodeColumns(fit: Pick<CapacityFit, 'index' | 'arrival'>): NodeColumns {
  const n = fit.index.instance.length;
  const out: NodeColumns = {
    waitMs: new Float64Array(n),
    windowOf: new Int32Array(n).fill(-1),
    visitFirst: new Uint8Array(n),
    visitWaitMs: new Float64Array(n),
  };
  const a = fit.arrival;
  fit.index.instances.forEach((x, j) => {
    const [w, win, first, vw] = [a.waitMs[j]!, a.windowOf[j]!, a.visitFirst[j]!, a.visitWaitMs[j]!];
    for (let k = 0; k < x.nodes.length; k++) {
      const i = x.nodes[k]!;
      out.waitMs[i] = w[k]!;
      out.windowOf[i] = win[k]!;
      out.visitFirst[i] = first[k]!;
      out.visitWaitMs[i] = vw[k]!;
    }
  });
  return out;
}

/** One instance's calls in arrival order: arrival, departure, own time, request. */
interface InstanceColumns {
  a: Float64Array;
  d: Float64Array;
  own: Float64Array;
  q: Uint32Array;
}

/**
 * Each instance's calls as columns in arrival order, filled in one pass over the nodes in node
 * order (`local`: each call's place among its instance's).
 */
function gather(
  t: RequestTrees,
  ch: Children,
  ix: CallIndex,
  local: Uint32Array,
): InstanceColumns[] {
  const cols = ix.instances.map(({ nodes: { length: m } }) => ({
    a: new Float64Array(m),
    d: new Float64Array(m),
    own: new Float64Array(m),
    q: new Uint32Array(m),
  }));
  const { instance, request } = ix;
  for (let i = 0; i < instance.length; i++) {
    const j = instance[i]!;
    if (j < 0) continue;
    const c = cols[j]!;
    const k = local[i]!;
    const q = request[i]!;
    const a = t.requestStartMs[q]! + t.startMs[i]!;
    c.a[k] = a;
    c.d[k] = a + t.durationMs[i]!;
    c.own[k] = ownTime(t, ch, i);
    c.q[k] = q;
  }
  return cols;
}

/** An instance's fit and the per-call columns the service fit and the scatter read. */
interface FittedInstance {
  fit: InstanceFit;
  /** Per call: queue wait, visit opened (1), the visit's summed wait there, window. */
  w: Float64Array;
  first: Uint8Array;
  visitWait: Float64Array;
  win: Int32Array;
}

function fitInstanceQueue(
  col: InstanceColumns,
  inst: CallIndex['instances'][number],
  known: number | undefined,
  scratch: VisitScratch,
): FittedInstance {
  const { a, d } = col;
  const m = a.length;
  const observed = concurrencyLimit(a, d);
  const k = Math.max(1, Math.floor(known ?? observed));
  const w = new Float64Array(m);
  const h = new Float64Array(m);
  fifoReconstruct(a, d, k, w, h);
  const first = new Uint8Array(m);
  const visitWait = new Float64Array(m);
  const { holds: visitHolds, chains } = visitsOf(col, h, w, first, visitWait, scratch);
  return {
    fit: {
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
    },
    w,
    first,
    visitWait,
    win: new Int32Array(m),
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
  col: InstanceColumns,
  h: Float64Array,
  w: Float64Array,
  visitFirst: Uint8Array,
  visitWait: Float64Array,
  scratch: VisitScratch,
): { holds: Float64Array; chains?: Chains } {
  const { a, d, q: request } = col;
  const m = a.length;
  // Typed arrays throughout (a Map of arrays per request cost half a second at 3M calls):
  // per request the head of its list of open visits (scratch.head, reset after), per visit
  // the next in that list, its last departure and its holds summed.
  const head = scratch.head;
  if (scratch.visitOf.length < m) {
    // Grown once to the largest instance: shared by the instances (less garbage).
    scratch.touched = new Uint32Array(m);
    scratch.nextOpen = new Int32Array(m);
    scratch.lastDeparture = new Float64Array(m);
    scratch.holdSum = new Float64Array(m);
    scratch.waitSum = new Float64Array(m);
    scratch.firstOf = new Int32Array(m);
    scratch.visitOf = new Int32Array(m);
  }
  const { touched, nextOpen, lastDeparture, visitOf, firstOf } = scratch;
  const holdSum = scratch.holdSum.fill(0, 0, m);
  // Each visit's recorded wait (its calls' waits summed) and its first call, in the same pass.
  const waitSum = scratch.waitSum.fill(0, 0, m);
  let nTouched = 0;
  let V = 0;
  for (let j = 0; j < m; j++) {
    const q = request[j]!;
    let v = -1;
    for (let x = head[q]!; x >= 0; x = nextOpen[x]!)
      if (lastDeparture[x]! <= a[j]! && (v < 0 || lastDeparture[x]! > lastDeparture[v]!)) v = x;
    if (v < 0) {
      v = V++;
      if (head[q] === -1) touched[nTouched++] = q;
      nextOpen[v] = head[q]!;
      head[q] = v;
      lastDeparture[v] = d[j]!;
      visitFirst[j] = 1;
      firstOf[v] = j;
    }
    holdSum[v]! += h[j]!;
    waitSum[v]! += w[j]!;
    if (d[j]! > lastDeparture[v]!) lastDeparture[v] = d[j]!;
    visitOf[j] = v;
  }
  for (let t = 0; t < nTouched; t++) head[touched[t]!] = -1;
  const holds = holdSum.slice(0, V);
  // Each visit's recorded wait, on its first call.
  for (let v = 0; v < V; v++) visitWait[firstOf[v]!] = waitSum[v]!;
  if (V === m) return { holds };
  // Chains: each visit's calls in order, with the caller's gap before each.
  const start = new Uint32Array(V + 1);
  for (let j = 0; j < m; j++) start[visitOf[j]! + 1]!++;
  for (let v = 0; v < V; v++) start[v + 1] = start[v + 1]! + start[v]!;
  const at = start.slice(0, V);
  const ch = new Float64Array(m);
  const gapBefore = new Float64Array(m);
  const lastEnd = new Float64Array(V).fill(Number.NaN);
  for (let j = 0; j < m; j++) {
    const v = visitOf[j]!;
    const x = at[v]!++;
    ch[x] = h[j]!;
    // The caller's time between the previous call's answer and this call's sending.
    gapBefore[x] = Number.isNaN(lastEnd[v]!) ? 0 : Math.max(0, a[j]! - lastEnd[v]!);
    lastEnd[v] = d[j]!;
  }
  return { holds, chains: { start, holds: ch, gapBefore } };
}

function fitService(
  ix: CallIndex,
  s: number,
  parts: { fit: InstanceFit; col: InstanceColumns; tmp: FittedInstance }[],
  perWindow: number,
  rng: SeededRandom,
): ServiceFit {
  const insts = parts.map((p) => p.fit);
  let t0 = Infinity;
  let t1 = -Infinity;
  let calls = 0;
  let visits = 0;
  for (const { col, tmp } of parts) {
    const m = col.a.length;
    if (m === 0) continue;
    // Arrival order: the first and last arrivals bound the instance's.
    t0 = Math.min(t0, col.a[0]!);
    t1 = Math.max(t1, col.a[m - 1]!);
    calls += m;
    for (let k = 0; k < m; k++) visits += tmp.first[k]!;
  }
  const W = Math.max(1, Math.min(MAX_WINDOWS, Math.floor(calls / insts.length / perWindow)));
  // The arrivals' own span (first to last) holds visits - 1 gaps, not visits: n / span reads
  // the load high by n / (n - 1) (1% at HotROD's 96 dispatches, which at utilisation 0.96 is
  // the difference between a short wait and seconds). The windows cover the span and one mean
  // gap between visits more, half before the first arrival and half after the last.
  const span = Math.max(1e-3, t1 - t0);
  const ext = visits > 1 ? span / (visits - 1) : 0;
  const origin = t0 - ext / 2;
  const lenMs = ((span + ext) * (1 + 1e-9)) / W;
  const points: LoadPoint[] = [];
  const obs: { hold: number; latency: number; weight: number; sim: number }[] = [];
  parts.forEach(({ fit: inst, col, tmp }) => {
    const ws = windowsOf(col, tmp, inst.holds, origin, lenMs, W);
    shrinkLoads(ws, lenMs);
    inst.gaps = arrivalGaps(col.a, tmp.first, tmp.win, ws);
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
        // Chains are simulated call by call: their budget counts calls (the fit reads only the
        // mean wait off this simulation, for the fit error).
        const nChain = Math.max(MIN_SIM, Math.ceil(nSim * share));
        const waits1 = inst.chains
          ? simulateChains(
              w.rate * share,
              inst.k,
              inst.chains,
              seed,
              nChain,
              nChain >> 2,
              inst.gaps,
            )
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

/** Per window of one instance: counts and sums, and each call's window (tmp.win). */
function windowsOf(
  col: InstanceColumns,
  tmp: FittedInstance,
  h: Float64Array,
  t0: number,
  lenMs: number,
  W: number,
): WindowSums[] {
  // Sums in typed arrays, one row of 5 per window (objects per window cost more per call).
  const sums = new Float64Array(5 * W);
  const { a, d, own } = col;
  const { w: wait, win } = tmp;
  for (let k = 0; k < a.length; k++) {
    const f = Math.floor((a[k]! - t0) / lenMs);
    const w = f < W - 1 ? f : W - 1;
    win[k] = w;
    const o = 5 * w;
    sums[o]! += 1;
    sums[o + 1]! += d[k]! - a[k]!;
    sums[o + 2]! += wait[k]!;
    sums[o + 3]! += h[k]!;
    const work = own[k]! - wait[k]!;
    if (work > 0) sums[o + 4]! += work;
  }
  return Array.from({ length: W }, (_, w) => ({
    index: w,
    startMs: t0 + w * lenMs,
    calls: sums[5 * w]!,
    sumDuration: sums[5 * w + 1]!,
    sumWait: sums[5 * w + 2]!,
    sumHold: sums[5 * w + 3]!,
    sumWork: sums[5 * w + 4]!,
    rate: 0,
    rawRate: 0,
  }));
}

/**
 * The instance's inter-arrival gaps, each in units of its window's mean gap (times the window's
 * observed rate): the recording's own arrival pattern, which the queue is simulated with rather
 * than Poisson arrivals. A load generator that sends on a schedule (HotROD's bench) queues far
 * less than Poisson arrivals at the same rate; a Poisson recording gives exponential gaps back.
 * Empty below MIN_GAPS calls (Poisson then). O(calls).
 */
function arrivalGaps(
  a: Float64Array,
  first: Uint8Array,
  win: Int32Array,
  ws: WindowSums[],
): Float64Array {
  let count = 0;
  for (let k = 0; k < first.length; k++) count += first[k]!;
  if (count < MIN_GAPS) return new Float64Array(0);
  const rate = Float64Array.from(ws, (w) => w.rawRate);
  const out = new Float64Array(count - 1);
  let sum = 0;
  let prev = -1;
  let j = 0;
  for (let k = 0; k < a.length; k++) {
    if (first[k] !== 1) continue;
    if (prev >= 0) {
      const g = (a[k]! - a[prev]!) * rate[win[k]!]!;
      out[j++] = g;
      sum += g;
    }
    prev = k;
  }
  // Units of the mean gap exactly (the windows' edges and visits leave it near 1, not at 1).
  const mean = sum / out.length;
  if (!(mean > 0)) return new Float64Array(0);
  for (let j = 0; j < out.length; j++) out[j] = out[j]! / mean;
  return out;
}

/** Per request the head of its open visits' list (-1: none), shared by the instances. */
interface VisitScratch {
  head: Int32Array;
  touched: Uint32Array;
  nextOpen: Int32Array;
  lastDeparture: Float64Array;
  holdSum: Float64Array;
  waitSum: Float64Array;
  firstOf: Int32Array;
  visitOf: Int32Array;
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
