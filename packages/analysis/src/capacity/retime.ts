/**
 * Whole requests re-timed by a change of each call's queue wait, with the whole-request
 * replay's rules (docs/whatif.md "Whole requests"): a call's wait comes before its work, so its
 * children move with it; a parent's children form blocks (one call, or a whole pool group
 * list-scheduled on its k workers in recorded order, each call keeping its recorded delay after
 * the worker it freed up); a block keeps its recorded gap to the latest block that ended before
 * it started (sequential calls stay sequential, overlapping ones concurrent); a parent keeps its
 * own (self) time, its end moving with its latest block's end.
 */

import type { RequestTrees } from '../whatif';

/** STRUCTURE_CODE.pool of the trees (request/trees/trees.ts). */
const POOL = 2;

/** Children CSR by recorded start, and the nodes in children-first order. O(n log n). */
export interface Children {
  start: Uint32Array;
  list: Uint32Array;
  /** Every node reached from a root, children before parents (request by request). */
  order: Uint32Array;
  /** Per request its nodes' segment of `order`: orderStart[q] .. orderStart[q + 1] - 1. */
  orderStart: Uint32Array;
}

export function childrenOf(t: RequestTrees): Children {
  const n = t.parent.length;
  const start = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) if (t.parent[i]! >= 0) start[t.parent[i]! + 1]!++;
  for (let i = 0; i < n; i++) start[i + 1] = start[i + 1]! + start[i]!;
  // start[p] as the cursor of p's children while filling (each ends at the next one's start),
  // then shifted back by one place: no cursor copy of n entries.
  const list = new Uint32Array(start[n]!);
  for (let i = 0; i < n; i++) if (t.parent[i]! >= 0) list[start[t.parent[i]!]!++] = i;
  for (let p = n; p > 0; p--) start[p] = start[p - 1]!;
  start[0] = 0;
  // By start, then end (a zero-length call at a block's start ends before it), then node;
  // sorted only where the storage order is not that already (the usual case).
  const before = (x: number, y: number): number =>
    t.startMs[x]! - t.startMs[y]! ||
    t.startMs[x]! + t.durationMs[x]! - (t.startMs[y]! + t.durationMs[y]!) ||
    x - y;
  const { startMs, durationMs } = t;
  for (let p = 0; p < n; p++) {
    const a = start[p]!;
    const b = start[p + 1]!;
    // before(x, y) < 0 for each neighbour pair, written out (a closure call per pair cost
    // tens of ms at 3M nodes).
    let inOrder = true;
    for (let k = a + 1; k < b; k++) {
      const x = list[k - 1]!;
      const y = list[k]!;
      const sx = startMs[x]!;
      const sy = startMs[y]!;
      if (sx < sy) continue;
      if (sx > sy) {
        inOrder = false;
        break;
      }
      const ex = sx + durationMs[x]!;
      const ey = sy + durationMs[y]!;
      if (ex < ey) continue;
      if (ex > ey || x > y) {
        inOrder = false;
        break;
      }
    }
    if (inOrder) continue;
    list.set(Array.from(list.subarray(a, b)).sort(before), a);
  }
  // Breadth-first from the roots, reversed: children before parents whatever the storage order.
  // One request at a time (its nodes are contiguous): a breadth-first pass over the whole forest
  // went level by level across every request, so each step of the re-timing that follows this
  // order touched another request's cache lines (~0.3 s at 3M nodes).
  const bfs = new Uint32Array(n);
  let tail = 0;
  const requests = t.nodeOffsets.length - 1;
  const orderStart = new Uint32Array(requests + 1);
  for (let q = 0; q < requests; q++) {
    const from = tail;
    orderStart[q] = from;
    const n0 = t.nodeOffsets[q]!;
    const n1 = t.nodeOffsets[q + 1]!;
    // Each parent stored before its children (the usual storage order): the request's nodes in
    // reverse are children-first already, and every node is reached from a root. Any
    // children-first order re-times alike (retime places each parent once, from its
    // children's final durations), so the breadth-first pass is not needed.
    let parentsFirst = true;
    for (let i = n0; i < n1; i++) {
      const p = t.parent[i]!;
      if (p >= 0 && (p < n0 || p >= i)) {
        parentsFirst = false;
        break;
      }
    }
    if (parentsFirst) {
      for (let i = n1 - 1; i >= n0; i--) bfs[tail++] = i;
      continue;
    }
    for (let i = n0; i < n1; i++) if (t.parent[i]! < 0) bfs[tail++] = i;
    for (let head = from; head < tail; head++) {
      const p = bfs[head]!;
      for (let k = start[p]!; k < start[p + 1]!; k++) bfs[tail++] = list[k]!;
    }
    bfs.subarray(from, tail).reverse();
  }
  orderStart[requests] = tail;
  return { start, list, order: bfs.subarray(0, tail), orderStart };
}

/** Scratch for one parent's blocks. */
interface Scratch {
  recStart: Float64Array;
  recEnd: Float64Array;
  span: Float64Array;
  newEnd: Float64Array;
  byEnd: Uint32Array;
  free: Float64Array;
  freeRec: Float64Array;
  order: Uint32Array;
  /** Per edge: the last parent whose pool group on it was placed (one block per group). */
  stamp: Int32Array;
}

/**
 * New durations and starts (ms from the request's start) when call i's wait changes by
 * deltaMs[i]. `outStart`, `outDuration`: per node. O(nodes x pool width).
 */
export function retime(
  t: RequestTrees,
  ch: Children,
  deltaMs: Float64Array,
  outStart: Float64Array,
  outDuration: Float64Array,
): void {
  const n = t.parent.length;
  let most = 1;
  for (let p = 0; p < n; p++) most = Math.max(most, ch.start[p + 1]! - ch.start[p]!);
  const sc: Scratch = {
    recStart: new Float64Array(most),
    recEnd: new Float64Array(most),
    span: new Float64Array(most),
    newEnd: new Float64Array(most),
    byEnd: new Uint32Array(most),
    free: new Float64Array(most),
    freeRec: new Float64Array(most),
    order: new Uint32Array(most),
    stamp: new Int32Array(t.edges.length).fill(-1),
  };
  // Request by request (each its own segment of ch.order). A request none of whose calls' waits
  // changes keeps its recorded times: copied, not re-timed (with no change the re-timing gives
  // back the recording; at a modest load change most requests queue nowhere new).
  const { order, orderStart } = ch;
  const requests = t.nodeOffsets.length - 1;
  for (let q = 0; q < requests; q++) {
    const n0 = t.nodeOffsets[q]!;
    const n1 = t.nodeOffsets[q + 1]!;
    let moved = false;
    for (let i = n0; i < n1; i++)
      if (deltaMs[i] !== 0) {
        moved = true;
        break;
      }
    if (!moved) {
      outStart.set(t.startMs.subarray(n0, n1), n0);
      outDuration.set(t.durationMs.subarray(n0, n1), n0);
      continue;
    }
    const o0 = orderStart[q]!;
    const o1 = orderStart[q + 1]!;
    // Bottom-up: durations, and each child's new start in its parent's recorded frame (outStart).
    for (let j = o0; j < o1; j++) {
      const p = order[j]!;
      const a = ch.start[p]!;
      const b = ch.start[p + 1]!;
      const own = t.parent[p]! >= 0 ? deltaMs[p]! : 0;
      if (a === b) {
        outDuration[p] = Math.max(0, t.durationMs[p]! + own);
        continue;
      }
      const shift = placeBlocks(t, ch.list, p, a, b, outDuration, outStart, sc);
      outDuration[p] = Math.max(0, t.durationMs[p]! + own + shift);
    }
    // Top-down: absolute starts. A child moves with its parent's start and the parent's wait.
    for (let j = o1 - 1; j >= o0; j--) {
      const p = order[j]!;
      if (t.parent[p]! < 0) outStart[p] = t.startMs[p]!;
      const move = outStart[p]! - t.startMs[p]! + (t.parent[p]! >= 0 ? deltaMs[p]! : 0);
      for (let k = ch.start[p]!; k < ch.start[p + 1]!; k++) outStart[ch.list[k]!]! += move;
    }
  }
}

/**
 * Places a parent's blocks; writes each child's new start (recorded frame) to outStart and
 * returns how much later the latest block ends than recorded.
 */
function placeBlocks(
  t: RequestTrees,
  list: Uint32Array,
  p: number,
  a: number,
  b: number,
  dur: Float64Array,
  outStart: Float64Array,
  sc: Scratch,
): number {
  const { recStart, recEnd, span, newEnd, byEnd } = sc;
  newEnd.fill(0, 0, b - a);
  // Blocks: a run of pool calls of one edge (in start order, possibly interleaved with others)
  // is one block, keyed by its first call.
  let m = 0;
  for (let k = a; k < b; k++) {
    const c = list[k]!;
    const pool = t.structure[c] === POOL;
    if (pool && sc.stamp[t.edge[c]!] === p) continue; // a later call of a placed pool group
    if (pool) {
      sc.stamp[t.edge[c]!] = p;
      poolBlock(t, list, a, b, k, dur, outStart, sc, m);
    } else {
      recStart[m] = t.startMs[c]!;
      recEnd[m] = t.startMs[c]! + t.durationMs[c]!;
      span[m] = dur[c]!;
      outStart[c] = 0; // offset inside its block
    }
    byEnd[m] = k - a;
    m++;
  }
  // Block order by recorded end: an insertion sort in scratch (few blocks per parent), the
  // array sort for a wide parent.
  const order = sc.order;
  if (m > 32)
    order.set(
      Array.from({ length: m }, (_, i) => i).sort((x, y) => recEnd[x]! - recEnd[y]! || x - y),
    );
  else
    for (let i = 0; i < m; i++) {
      let j = i;
      while (j > 0 && recEnd[order[j - 1]!]! > recEnd[i]!) {
        order[j] = order[j - 1]!;
        j--;
      }
      order[j] = i;
    }
  let ptr = 0;
  let newMax = -Infinity;
  let recMax = -Infinity;
  let now = -Infinity;
  let rec = -Infinity;
  for (let j = 0; j < m; j++) {
    while (ptr < m && recEnd[order[ptr]!]! <= recStart[j]!) {
      const o = order[ptr++]!;
      // A block not placed yet (zero length, tied at this start) cannot have moved anything.
      if (o >= j) continue;
      if (newEnd[o]! > newMax) newMax = newEnd[o]!;
      if (recEnd[o]! > recMax) recMax = recEnd[o]!;
    }
    const shift = recMax === -Infinity ? 0 : newMax - recMax;
    // Blocks absorbed are placed already: they started before this one (recEnd <= its start).
    const ns = recStart[j]! + shift;
    newEnd[j] = ns + span[j]!;
    if (newEnd[j]! > now) now = newEnd[j]!;
    if (recEnd[j]! > rec) rec = recEnd[j]!;
    startBlock(t, list, b, byEnd[j]! + a, ns, outStart);
  }
  return now - rec;
}

/** A pool group (the calls of list[k]'s edge) list-scheduled: its block's span and offsets. */
function poolBlock(
  t: RequestTrees,
  list: Uint32Array,
  a: number,
  b: number,
  k: number,
  dur: Float64Array,
  outStart: Float64Array,
  sc: Scratch,
  m: number,
): void {
  const first = list[k]!;
  const e = t.edge[first]!;
  const workers = Math.max(1, t.concurrency[first]!);
  const g0 = t.startMs[first]!;
  const { free, freeRec } = sc;
  const w = Math.min(workers, b - a);
  for (let i = 0; i < w; i++) free[i] = freeRec[i] = 0;
  let end = 0;
  let endRec = 0;
  for (let q = k; q < b; q++) {
    const c = list[q]!;
    if (t.edge[c] !== e || t.structure[c] !== POOL) continue;
    let x = 0;
    for (let i = 1; i < w; i++) if (freeRec[i]! < freeRec[x]!) x = i;
    const rs = t.startMs[c]! - g0;
    const delay = rs - freeRec[x]!;
    freeRec[x] = rs + t.durationMs[c]!;
    if (freeRec[x]! > endRec) endRec = freeRec[x]!;
    let y = 0;
    for (let i = 1; i < w; i++) if (free[i]! < free[y]!) y = i;
    const ns = Math.max(0, free[y]! + delay);
    outStart[c] = ns;
    free[y] = ns + dur[c]!;
    if (free[y]! > end) end = free[y]!;
  }
  sc.recStart[m] = g0;
  sc.recEnd[m] = g0 + endRec;
  sc.span[m] = end;
}

/** Adds the block's new start to the offsets of its calls (one call, or a pool group). */
function startBlock(
  t: RequestTrees,
  list: Uint32Array,
  b: number,
  k: number,
  ns: number,
  outStart: Float64Array,
): void {
  const first = list[k]!;
  if (t.structure[first] !== POOL) {
    outStart[first] = ns;
    return;
  }
  const e = t.edge[first]!;
  for (let q = k; q < b; q++) {
    const c = list[q]!;
    if (t.edge[c] === e && t.structure[c] === POOL) outStart[c] = ns + outStart[c]!;
  }
}
