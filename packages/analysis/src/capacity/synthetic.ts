/**
 * Recordings drawn from a known queueing model (tests and the benchmark): one service answering
 * FIFO on k servers with Poisson arrivals, each request a root calling it once.
 */

import { SeededRandom } from '../random';
import type { RequestTrees } from '../whatif';

export interface QueueModel {
  /** Arrivals per ms, servers, and a service-time sampler (ms). */
  ratePerMs: number;
  servers: number;
  service: (rng: SeededRandom) => number;
  /** Arrivals: Poisson (default), or on a schedule, 1 / rate apart (a scripted load). */
  arrivals?: 'poisson' | 'periodic';
}

/** Exponential service of mean `meanMs` (M/M/k). */
export const exponential =
  (meanMs: number) =>
  (rng: SeededRandom): number =>
    -meanMs * Math.log(1 - rng.float());

/** Log-normal service of mean `meanMs` and log-sd `sigma` (M/G/k). */
export const logNormal =
  (meanMs: number, sigma: number) =>
  (rng: SeededRandom): number =>
    meanMs * Math.exp(sigma * rng.normal() - (sigma * sigma) / 2);

/**
 * `n` arrivals of the model's FIFO queue (an independent implementation: the k servers' free
 * times scanned linearly), after `warmup` more: each arrival's wait and service time.
 */
export function runQueue(
  m: QueueModel,
  n: number,
  seed: number,
  warmup = 2000,
): { arrivalMs: Float64Array; waitMs: Float64Array; serviceMs: Float64Array } {
  const rng = new SeededRandom(seed);
  const free = new Array<number>(m.servers).fill(0);
  const arrivalMs = new Float64Array(n);
  const waitMs = new Float64Array(n);
  const serviceMs = new Float64Array(n);
  let t = 0;
  for (let i = -warmup; i < n; i++) {
    const u = rng.float();
    t += (m.arrivals === 'periodic' ? 1 : -Math.log(1 - u)) / m.ratePerMs;
    let w = 0;
    for (let j = 1; j < m.servers; j++) if (free[j]! < free[w]!) w = j;
    const start = Math.max(t, free[w]!);
    const s = m.service(rng);
    free[w] = start + s;
    if (i < 0) continue;
    arrivalMs[i] = t;
    waitMs[i] = start - t;
    serviceMs[i] = s;
  }
  return { arrivalMs, waitMs, serviceMs };
}

/** Root self time before and after the call, ms. */
export const ROOT_BEFORE_MS = 0.2;
export const ROOT_AFTER_MS = 0.3;

/**
 * A recording of `n` requests of the model: root -> one call to `db` on host db-0. With
 * `hosts` > 1 the calls name db-0 ... db-(hosts - 1) at random while one queue serves them all
 * (virtual hosts of one process, as the demo's: the spans of one host do not see the queue).
 */
export function queueTrees(m: QueueModel, n: number, seed: number, hosts = 1): RequestTrees {
  const q = runQueue(m, n, seed);
  const nodes = 2 * n;
  const parent = new Int32Array(nodes);
  const startMs = new Float64Array(nodes);
  const durationMs = new Float64Array(nodes);
  const edge = new Int32Array(nodes);
  const nodeOffsets = new Uint32Array(n + 1);
  const requestStartMs = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const call = q.waitMs[i]! + q.serviceMs[i]!;
    nodeOffsets[i + 1] = 2 * i + 2;
    requestStartMs[i] = 1.7e12 + q.arrivalMs[i]! - ROOT_BEFORE_MS;
    parent[2 * i] = -1;
    edge[2 * i] = -1;
    durationMs[2 * i] = ROOT_BEFORE_MS + call + ROOT_AFTER_MS;
    parent[2 * i + 1] = 2 * i;
    startMs[2 * i + 1] = ROOT_BEFORE_MS;
    durationMs[2 * i + 1] = call;
  }
  return {
    nodeOffsets,
    requestStartMs,
    traceIds: Array.from({ length: n }, (_, i) => i.toString(16).padStart(32, '0')),
    parent,
    startMs,
    durationMs,
    edge,
    host: hostsOf(nodes, hosts, seed),
    mode: new Uint32Array(nodes),
    structure: new Uint8Array(nodes),
    concurrency: new Uint32Array(nodes).fill(1),
    edges: [
      {
        parentService: 'frontend',
        parentOperation: 'GET /',
        leafService: 'db',
        leafOperation: 'query',
      },
    ],
    hosts: ['', ...Array.from({ length: hosts }, (_, h) => `db-${h}`)],
    modes: [''],
  };
}

/** Roots on host 0 (''), calls on 1 + a seeded uniform pick of `hosts` (1 with one host). */
function hostsOf(nodes: number, hosts: number, seed: number): Uint32Array {
  const out = new Uint32Array(nodes);
  const rng = new SeededRandom(seed ^ 0x2545f491);
  for (let i = 1; i < nodes; i += 2) out[i] = hosts > 1 ? 1 + Math.floor(rng.float() * hosts) : 1;
  return out;
}

/** The caller's time between an answer and its next call in chainTrees, ms. */
export const CHAIN_GAP_MS = 0.1;

/**
 * A recording of `n` requests that each call `db` `calls` times one after the other (the next
 * call `CHAIN_GAP_MS` after the answer, as HotROD's driver asks redis), one FIFO queue of
 * `m.servers` serving every call in the order the calls arrive (another request's call may
 * come between two of a chain's). Event-driven; requests arrive per `m.arrivals`. Also the
 * request times, for the truth at other rates.
 */
export function chainTrees(
  m: QueueModel,
  calls: number,
  n: number,
  seed: number,
  warmup = 2000,
): { trees: RequestTrees; requestMs: Float64Array } {
  const rng = new SeededRandom(seed);
  const total = n + warmup;
  const start = new Float64Array(total);
  let t = 0;
  for (let q = 0; q < total; q++) {
    const u = rng.float();
    t += (m.arrivals === 'periodic' ? 1 : -Math.log(1 - u)) / m.ratePerMs;
    start[q] = t;
  }
  // Pending calls by arrival time: a binary heap of (time, request, call).
  const heapT: number[] = [];
  const heapQ: number[] = [];
  const push = (time: number, q: number) => {
    let i = heapT.length;
    heapT.push(time);
    heapQ.push(q);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (heapT[p]! <= time) break;
      heapT[i] = heapT[p]!;
      heapQ[i] = heapQ[p]!;
      i = p;
    }
    heapT[i] = time;
    heapQ[i] = q;
  };
  const pop = (): [number, number] => {
    const top: [number, number] = [heapT[0]!, heapQ[0]!];
    const lt = heapT.pop()!;
    const lq = heapQ.pop()!;
    if (heapT.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= heapT.length) break;
        const r = l + 1;
        const c = r < heapT.length && heapT[r]! < heapT[l]! ? r : l;
        if (heapT[c]! >= lt) break;
        heapT[i] = heapT[c]!;
        heapQ[i] = heapQ[c]!;
        i = c;
      }
      heapT[i] = lt;
      heapQ[i] = lq;
    }
    return top;
  };
  const free = new Float64Array(m.servers);
  const done = new Uint32Array(total);
  const callStart = new Float64Array(total * calls);
  const callEnd = new Float64Array(total * calls);
  for (let q = 0; q < total; q++) push(start[q]!, q);
  while (heapT.length > 0) {
    const [at, q] = pop();
    let w = 0;
    for (let j = 1; j < m.servers; j++) if (free[j]! < free[w]!) w = j;
    const end = Math.max(at, free[w]!) + m.service(rng);
    free[w] = end;
    const c = done[q]!++;
    callStart[q * calls + c] = at;
    callEnd[q * calls + c] = end;
    if (c + 1 < calls) push(end + CHAIN_GAP_MS, q);
  }
  const per = calls + 1;
  const nodes = n * per;
  const parent = new Int32Array(nodes);
  const startMs = new Float64Array(nodes);
  const durationMs = new Float64Array(nodes);
  const edge = new Int32Array(nodes);
  const nodeOffsets = new Uint32Array(n + 1);
  const requestStartMs = new Float64Array(n);
  const requestMs = new Float64Array(n);
  for (let r = 0; r < n; r++) {
    const q = r + warmup;
    const base = r * per;
    const t0 = callStart[q * calls]! - ROOT_BEFORE_MS;
    const t1 = callEnd[q * calls + calls - 1]! + ROOT_AFTER_MS;
    nodeOffsets[r + 1] = base + per;
    requestStartMs[r] = 1.7e12 + t0;
    requestMs[r] = t1 - t0;
    parent[base] = -1;
    edge[base] = -1;
    durationMs[base] = t1 - t0;
    for (let c = 0; c < calls; c++) {
      parent[base + 1 + c] = base;
      startMs[base + 1 + c] = callStart[q * calls + c]! - t0;
      durationMs[base + 1 + c] = callEnd[q * calls + c]! - callStart[q * calls + c]!;
    }
  }
  const calls1 = Uint8Array.from({ length: nodes }, (_, i) => (i % per === 0 ? 0 : 3));
  return {
    trees: {
      nodeOffsets,
      requestStartMs,
      traceIds: Array.from({ length: n }, (_, i) => i.toString(16).padStart(32, '0')),
      parent,
      startMs,
      durationMs,
      edge,
      host: Uint32Array.from({ length: nodes }, (_, i) => (i % per === 0 ? 0 : 1)),
      mode: new Uint32Array(nodes),
      structure: calls > 1 ? calls1 : new Uint8Array(nodes),
      concurrency: new Uint32Array(nodes).fill(1),
      edges: [
        {
          parentService: 'driver',
          parentOperation: 'FindNearest',
          leafService: 'redis',
          leafOperation: 'GetDriver',
        },
      ],
      hosts: ['', 'redis-0'],
      modes: [''],
    },
    requestMs,
  };
}
