/**
 * FIFO k-server queues: the reconstruction of a recorded queue's waits (arrivals and departures
 * known, service starts not) and the M/G/k simulation the capacity model predicts with.
 */

import { SeededRandom } from '../random';
import { sortedOrder } from '../whatif';
import { WaitHistogram } from './histogram';

/** A min-heap of numbers in a Float64Array of fixed capacity (no objects per push). */
class MinHeap {
  readonly v: Float64Array;
  size = 0;
  constructor(capacity: number) {
    this.v = new Float64Array(Math.max(1, capacity));
  }
  push(x: number): void {
    let i = this.size++;
    const v = this.v;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (v[p]! <= x) break;
      v[i] = v[p]!;
      i = p;
    }
    v[i] = x;
  }
  /** Replaces the least value with x. */
  replaceTop(x: number): void {
    const v = this.v;
    const n = this.size;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && v[r]! < v[l]! ? r : l;
      if (v[c]! >= x) break;
      v[i] = v[c]!;
      i = c;
    }
    v[i] = x;
  }
}

/**
 * The observed concurrency limit of a FIFO server: 1 + the most calls that arrived before a call
 * and departed after it. In a FIFO queue with k servers a call can overtake only the calls in
 * service beside it (at most k - 1), so this is a lower bound of k, reached as soon as the
 * recording had all k servers busy with the later call finishing first. `arrival` sorted
 * ascending, `departure` per call. O(n x calls in flight), O(n log n) with many in flight.
 */
export function concurrencyLimit(arrival: Float64Array, departure: Float64Array): number {
  const n = arrival.length;
  if (n === 0) return 1;
  return (overtakenInFlight(arrival, departure) ?? overtakenByRank(arrival, departure)) + 1;
}

/** Calls in flight beyond this: overtakenByRank (the scan would cost more than the ranks). */
const MAX_IN_FLIGHT = 64;

/**
 * The most earlier calls departing after a call, counted among the calls still in flight at its
 * arrival: an earlier call that departs after this one's departure is in flight at its arrival
 * (when no call departs before it arrives), so the count is the same as over all earlier calls,
 * without a sort of the departures (a third of the fit's time at 3 million calls). Undefined
 * when more than MAX_IN_FLIGHT are in flight at once, or a departure precedes its arrival (or is
 * NaN): then the argument does not hold.
 */
function overtakenInFlight(arrival: Float64Array, departure: Float64Array): number | undefined {
  const n = arrival.length;
  for (let i = 0; i < n; i++) if (!(departure[i]! >= arrival[i]!)) return undefined;
  const flight = new Float64Array(MAX_IN_FLIGHT + 1);
  let size = 0;
  let most = 0;
  for (let i = 0; i < n; i++) {
    const a = arrival[i]!;
    const d = departure[i]!;
    let kept = 0;
    let over = 0;
    for (let x = 0; x < size; x++) {
      const f = flight[x]!;
      if (f <= a) continue; // departed by this arrival: it overtakes no later call
      flight[kept++] = f;
      if (f > d) over++;
    }
    if (over > most) most = over;
    if (kept === MAX_IN_FLIGHT) return undefined;
    flight[kept] = d;
    size = kept + 1;
  }
  return most;
}

/** The same count over every earlier call: a Fenwick tree over departure ranks. O(n log n). */
function overtakenByRank(arrival: Float64Array, departure: Float64Array): number {
  const n = arrival.length;
  // Ranks of the departures (ties share the lower rank: a tie is no overtaking).
  const order = sortedOrder(departure);
  const rank = new Uint32Array(n);
  for (let j = 0, r = 0; j < n; j++) {
    if (j > 0 && departure[order[j]!]! !== departure[order[j - 1]!]!) r = j;
    rank[order[j]!] = r + 1;
  }
  const fen = new Uint32Array(n + 1);
  let most = 0;
  for (let i = 0; i < n; i++) {
    // Earlier calls departing at or before this one: a Fenwick prefix sum over departure ranks.
    let atMost = 0;
    for (let x = rank[i]!; x > 0; x -= x & -x) atMost += fen[x]!;
    // Ties in departure rank at or below: counted as not overtaken.
    const over = i - atMost;
    if (over > most) most = over;
    for (let x = rank[i]!; x <= n; x += x & -x) fen[x]!++;
  }
  return most;
}

/**
 * The FIFO k-server reconstruction: call i (in arrival order) entered service at
 * max(arrival_i, start_(i-1), the k-th latest departure among earlier calls), the first moment a
 * server was free for it with every earlier call already served; exact for a FIFO queue of k
 * servers. Writes the waits (start - arrival) and holds (departure - start) in place. A call that
 * would start after its own departure (the recording is not FIFO with k servers) is clamped: its
 * wait ends at its departure. O(n log k).
 */
export function fifoReconstruct(
  arrival: Float64Array,
  departure: Float64Array,
  k: number,
  wait: Float64Array,
  hold: Float64Array,
): void {
  const heap = new MinHeap(k);
  let prev = -Infinity;
  for (let i = 0; i < arrival.length; i++) {
    const a = arrival[i]!;
    const d = departure[i]!;
    let s = Math.max(a, prev);
    if (heap.size === k && heap.v[0]! > s) s = heap.v[0]!;
    if (s > d) s = d;
    if (s < a) s = a;
    prev = s;
    wait[i] = s - a;
    hold[i] = d - s;
    if (heap.size < k) heap.push(d);
    else if (d > heap.v[0]!) heap.replaceTop(d);
  }
}

/**
 * A FIFO queue of k servers fed Poisson arrivals at `ratePerMs` (or, with `gaps`, inter-arrival
 * times drawn uniformly from those, given in units of the mean gap, over `ratePerMs`: the
 * recording's own arrival pattern), service times drawn uniformly from `service` (ms); the arrivals' draws come from a generator seeded with `seed`, so two
 * rates run on common random numbers (their waits differ by the rate, not by the draws). The
 * waits of the `n` arrivals after the first `warmup` (the queue starts empty) go to a
 * histogram. O((n + warmup) log k), no allocation beyond the heap.
 */
export function simulateMgk(
  ratePerMs: number,
  k: number,
  service: Float64Array,
  seed: number,
  n: number,
  warmup: number,
  gaps?: Float64Array,
): WaitHistogram {
  const rng = new SeededRandom(seed);
  const out = new WaitHistogram();
  const free = new MinHeap(k);
  for (let i = 0; i < k; i++) free.push(0);
  const m = service.length;
  const v = free.v;
  let t = 0;
  const g = gaps !== undefined && gaps.length > 0 ? gaps : undefined;
  const gm = g?.length ?? 0;
  for (let i = 0; i < n + warmup; i++) {
    const u = rng.float();
    t += (g ? g[Math.min(gm - 1, Math.floor(u * gm))]! : -Math.log(1 - u)) / ratePerMs;
    const pick = service[Math.min(m - 1, Math.floor(rng.float() * m))]!;
    const f = v[0]!;
    const s = f > t ? f : t;
    free.replaceTop(s + pick);
    if (i >= warmup) out.add(s - t);
  }
  return out.seal();
}

/**
 * simulateMgk at two rates on one stream of draws, in one pass: the same waits as two calls
 * (the same arrivals scaled, the same service picks), at about half the draws' cost.
 */
export function simulateMgkPair(
  rateA: number,
  rateB: number,
  k: number,
  service: Float64Array,
  seed: number,
  n: number,
  warmup: number,
  gaps?: Float64Array,
): [WaitHistogram, WaitHistogram] {
  const rng = new SeededRandom(seed);
  const outA = new WaitHistogram();
  const outB = new WaitHistogram();
  const freeA = new MinHeap(k);
  const freeB = new MinHeap(k);
  for (let i = 0; i < k; i++) {
    freeA.push(0);
    freeB.push(0);
  }
  const m = service.length;
  const va = freeA.v;
  const vb = freeB.v;
  let ta = 0;
  let tb = 0;
  const g = gaps !== undefined && gaps.length > 0 ? gaps : undefined;
  const gm = g?.length ?? 0;
  for (let i = 0; i < n + warmup; i++) {
    const u = rng.float();
    const gap = g ? g[Math.min(gm - 1, Math.floor(u * gm))]! : -Math.log(1 - u);
    ta += gap / rateA;
    tb += gap / rateB;
    const pick = service[Math.min(m - 1, Math.floor(rng.float() * m))]!;
    const fa = va[0]!;
    const sa = fa > ta ? fa : ta;
    freeA.replaceTop(sa + pick);
    const fb = vb[0]!;
    const sb = fb > tb ? fb : tb;
    freeB.replaceTop(sb + pick);
    if (i >= warmup) {
      outA.add(sa - ta);
      outB.add(sb - tb);
    }
  }
  return [outA.seal(), outB.seal()];
}

/**
 * Chains of calls (fit.ts visitsOf): visit v is calls `start[v]` .. `start[v + 1] - 1` of
 * `holds`, each call after the first sent `gapBefore` ms after the previous one's answer.
 */
export interface Chains {
  start: Uint32Array;
  holds: Float64Array;
  gapBefore: Float64Array;
}

/**
 * simulateMgkPair for visits that are chains of calls: visits arrive as simulateMgk's arrivals
 * (Poisson, or `gaps`), each a recorded visit drawn uniformly; its calls join one FIFO queue of
 * k servers in the order they arrive, the next call of a visit `gapBefore` after the previous
 * call's answer (so another visit's call may come between two of a chain's). Each visit's wait
 * (its calls' waits summed) goes to the histogram. Event-driven: O(calls log calls).
 */
export function simulateChainsPair(
  rateA: number,
  rateB: number,
  k: number,
  chains: Chains,
  seed: number,
  n: number,
  warmup: number,
  gaps?: Float64Array,
): [WaitHistogram, WaitHistogram] {
  return [
    simulateChains(rateA, k, chains, seed, n, warmup, gaps),
    simulateChains(rateB, k, chains, seed, n, warmup, gaps),
  ];
}

export function simulateChains(
  ratePerMs: number,
  k: number,
  chains: Chains,
  seed: number,
  n: number,
  warmup: number,
  gaps?: Float64Array,
): WaitHistogram {
  const rng = new SeededRandom(seed);
  const out = new WaitHistogram();
  const free = new MinHeap(k);
  for (let i = 0; i < k; i++) free.push(0);
  const g = gaps !== undefined && gaps.length > 0 ? gaps : undefined;
  const gm = g?.length ?? 0;
  const visits = chains.start.length - 1;
  const total = n + warmup;
  // Pending calls by arrival time: (time, visit, call) in a binary heap of parallel arrays.
  const cap = 1024;
  let ht = new Float64Array(cap);
  let hv = new Int32Array(cap);
  let hc = new Uint32Array(cap);
  let size = 0;
  const push = (t: number, v: number, c: number): void => {
    if (size === ht.length) {
      const t2 = new Float64Array(2 * size);
      t2.set(ht);
      ht = t2;
      const v2 = new Int32Array(2 * size);
      v2.set(hv);
      hv = v2;
      const c2 = new Uint32Array(2 * size);
      c2.set(hc);
      hc = c2;
    }
    let i = size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (ht[p]! <= t) break;
      ht[i] = ht[p]!;
      hv[i] = hv[p]!;
      hc[i] = hc[p]!;
      i = p;
    }
    ht[i] = t;
    hv[i] = v;
    hc[i] = c;
  };
  // Per simulated visit: the recorded visit it replays, its wait so far.
  const pick = new Int32Array(total);
  const wait = new Float64Array(total);
  let t = 0;
  let next = 0;
  let nextAt = 0;
  const arrive = (): void => {
    const u = rng.float();
    t += (g ? g[Math.min(gm - 1, Math.floor(u * gm))]! : -Math.log(1 - u)) / ratePerMs;
    pick[next] = Math.min(visits - 1, Math.floor(rng.float() * visits));
    nextAt = t;
  };
  arrive();
  const v0 = free.v;
  while (next < total || size > 0) {
    // The earliest of the next new visit and the pending calls.
    let at: number;
    let sv: number;
    let c: number;
    if (next < total && (size === 0 || nextAt <= ht[0]!)) {
      at = nextAt;
      sv = next++;
      c = 0;
      if (next < total) arrive();
    } else {
      at = ht[0]!;
      sv = hv[0]!;
      c = hc[0]!;
      // Pop the heap's top.
      const lt = ht[--size]!;
      const lv = hv[size]!;
      const lc = hc[size]!;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= size) break;
        const r = l + 1;
        const m = r < size && ht[r]! < ht[l]! ? r : l;
        if (ht[m]! >= lt) break;
        ht[i] = ht[m]!;
        hv[i] = hv[m]!;
        hc[i] = hc[m]!;
        i = m;
      }
      ht[i] = lt;
      hv[i] = lv;
      hc[i] = lc;
    }
    const rv = pick[sv]!;
    const j = chains.start[rv]! + c;
    const f = v0[0]!;
    const s = f > at ? f : at;
    const end = s + chains.holds[j]!;
    free.replaceTop(end);
    wait[sv]! += s - at;
    if (j + 1 < chains.start[rv + 1]!) push(end + chains.gapBefore[j + 1]!, sv, c + 1);
    else if (sv >= warmup) out.add(wait[sv]!);
  }
  return out.seal();
}
