/* eslint-disable @typescript-eslint/no-non-null-assertion -- typed-array loops: every index is in
   bounds by construction (offsets, CSR lists), and a `?? 0` would hide an indexing bug as a zero. */
import type { LeafCalls } from '../types';
import { STRUCTURE_CODE, type RequestTrees } from './request-trees';

/**
 * Whole-request replay (issue #14): the target edge's calls are re-timed by a policy (on the
 * LeafCalls `targetBlocks` builds), then every ancestor is recomputed from its children:
 * - a parent's children form blocks: one call, or a whole group (one parent's calls on one edge)
 *   when the group is a target parallel group (its all-leaves time comes from the policy's
 *   replay, so canary and good-enough act on it) or is scheduled as a pool;
 * - a block keeps its recorded gap to the latest block that ended before it started (sequential:
 *   recorded gaps plus the children in order; parallel: the latest child);
 * - a pool group is list-scheduled in recorded order on k workers (its recorded concurrency, or
 *   the pool policy's k for the target edge), each call keeping its recorded dispatch delay
 *   after its worker freed up (so an unchanged pool replays exactly as recorded);
 * - a parent keeps its own (self) time: its end moves with its latest block's end.
 */
export interface PreparedRequests {
  trees: RequestTrees;
  /** Children of node n: childList[childStart[n] .. childStart[n + 1]), by recorded start. */
  childStart: Uint32Array;
  childList: Uint32Array;
  /** The nodes with children, children before parents. */
  internal: Uint32Array;
  /** The target calls replayed alone (one block each), and their blocks. */
  lone: Uint32Array;
  loneBlock: Uint32Array;
  /** Per node: block of the target LeafCalls it is replayed in, -1 when not a target call. */
  blockOf: Int32Array;
  /** Per node: target group index (its fan-out), -1 when not a target call. */
  groupOf: Int32Array;
  groups: number;
  /** Per target group: recorded span (first start to last end), ms. */
  groupRecordedMs: Float64Array;
  /** Target calls as LeafCalls: one fan-out per target parallel group or per other call. */
  blocks: LeafCalls;
  /** Per node: 1 when its group is a target parallel group replayed as one fan-out. */
  wholeGroup: Uint8Array;
  maxChildren: number;
}

export interface TargetOptions {
  /** Per edge: 1 when the edge is replayed under the policy. */
  target: Uint8Array;
  /** Every target call its own block (per-call policies on pools; the pool policy). */
  perCall: boolean;
}

/**
 * Children CSR (by recorded start, then end) and the nodes with children, children first.
 * O(nodes), plus a sort of the children of a parent whose storage order is not start order.
 */
function childrenOf(t: RequestTrees): {
  start: Uint32Array;
  list: Uint32Array;
  internal: Uint32Array;
  most: number;
} {
  const n = t.parent.length;
  const parent = t.parent;
  // Counting sort by parent, filled backwards so each parent's children keep node order and
  // `start` ends up holding each parent's first slot (no second cursor array).
  const start = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) if (parent[i]! >= 0) start[parent[i]!]!++;
  let total = 0;
  for (let i = 0; i < n; i++) start[i] = total += start[i]!;
  start[n] = total;
  const list = new Uint32Array(total);
  for (let i = n - 1; i >= 0; i--) if (parent[i]! >= 0) list[--start[parent[i]!]!] = i;
  let most = 0;
  let internals = 0;
  const startMs = t.startMs;
  const durationMs = t.durationMs;
  for (let p = 0; p < n; p++) {
    const a = start[p]!;
    const b = start[p + 1]!;
    if (b === a) continue;
    internals++;
    if (b - a > most) most = b - a;
    // Inline check (a call per parent costs more than the check): start order, then end.
    let inOrder = true;
    for (let k = a + 1; k < b && inOrder; k++) {
      const x = list[k - 1]!;
      const y = list[k]!;
      const sx = startMs[x]!;
      const sy = startMs[y]!;
      inOrder = !(sx > sy) && !(sx === sy && sx + durationMs[x]! > sy + durationMs[y]!);
    }
    if (!inOrder) sortChildren(list, a, b, startMs, durationMs);
  }
  return { start, list, internal: childrenFirst(t, start, list, internals), most };
}

/** By recorded start, then end, then node: one order however the sort proceeds. */
function childOrder(x: number, y: number, startMs: Float64Array, durationMs: Float64Array): number {
  return (
    startMs[x]! - startMs[y]! ||
    startMs[x]! + durationMs[x]! - (startMs[y]! + durationMs[y]!) ||
    x - y
  );
}

/**
 * Sorts list[a, b) by childOrder. Few children (the common case: a pool's tied starts):
 * insertion sort in place, no allocation; many: the array sort.
 */
function sortChildren(
  list: Uint32Array,
  a: number,
  b: number,
  startMs: Float64Array,
  durationMs: Float64Array,
): void {
  if (b - a > 32) {
    const kids = Array.from(list.subarray(a, b)).sort((x, y) =>
      childOrder(x, y, startMs, durationMs),
    );
    list.set(kids, a);
    return;
  }
  for (let i = a + 1; i < b; i++) {
    const x = list[i]!;
    let j = i;
    while (j > a && childOrder(list[j - 1]!, x, startMs, durationMs) > 0) {
      list[j] = list[j - 1]!;
      j--;
    }
    list[j] = x;
  }
}

/**
 * The nodes with children, children first. When every parent precedes its children (the usual
 * storage order), that is the reverse node order; otherwise a breadth-first order from the
 * roots, reversed.
 */
function childrenFirst(
  t: RequestTrees,
  start: Uint32Array,
  list: Uint32Array,
  internals: number,
): Uint32Array {
  const n = t.parent.length;
  const out = new Uint32Array(internals);
  let ordered = true;
  for (let i = 0; i < n && ordered; i++) if (t.parent[i]! >= i) ordered = false;
  let m = 0;
  if (ordered) {
    for (let i = n - 1; i >= 0; i--) if (start[i] !== start[i + 1]) out[m++] = i;
    return out;
  }
  const bfs = new Uint32Array(n);
  let head = 0;
  let tail = 0;
  for (let i = 0; i < n; i++) if (t.parent[i]! < 0) bfs[tail++] = i;
  while (head < tail) {
    const p = bfs[head++]!;
    for (let k = start[p]!; k < start[p + 1]!; k++) bfs[tail++] = list[k]!;
  }
  for (let i = tail - 1; i >= 0; i--) if (start[bfs[i]!] !== start[bfs[i]! + 1]) out[m++] = bfs[i]!;
  return out;
}

/** Prepares trees for replays of the target edges. O(nodes), no per-node objects. */
export function prepareRequests(t: RequestTrees, o: TargetOptions): PreparedRequests {
  const { start, list, internal, most } = childrenOf(t);
  const n = t.parent.length;
  const { edge, structure, startMs, nodeOffsets, requestStartMs } = t;
  const target = o.target;
  const blockOf = new Int32Array(n).fill(-1);
  const groupOf = new Int32Array(n).fill(-1);
  const wholeGroup = new Uint8Array(n);
  let targets = 0;
  for (let i = 0; i < n; i++) if (edge[i]! >= 0 && target[edge[i]!] === 1) targets++;
  const fanStart = new Float64Array(targets);
  const offsets = new Uint32Array(targets + 1);
  const callStart = new Float64Array(targets);
  const callNode = new Uint32Array(targets);
  const lone = new Uint32Array(targets);
  const loneBlock = new Uint32Array(targets);
  const groupRec = new Float64Array(targets);
  let nb = 0; // blocks
  let nc = 0; // calls placed
  let nl = 0; // lone blocks
  let ng = 0; // groups
  // Edge -> group of the current parent: a stamp per edge instead of a map cleared per parent.
  const stamp = new Int32Array(o.target.length).fill(-1);
  const groupOfEdge = new Int32Array(o.target.length);
  let req = 0;
  for (let p = 0; p < n; p++) {
    if (start[p] === start[p + 1]) continue;
    // p only grows: the request owning it is found by walking forward.
    while (nodeOffsets[req + 1]! <= p) req++;
    for (let k = start[p]!; k < start[p + 1]!; k++) {
      const c = list[k]!;
      const e = edge[c]!;
      if (e < 0 || target[e] !== 1) continue;
      if (stamp[e] !== p) {
        stamp[e] = p;
        groupOfEdge[e] = ng;
        groupRec[ng++] = groupSpan(t, start, list, p, e);
      }
      groupOf[c] = groupOfEdge[e]!;
      const whole = !o.perCall && structure[c] === STRUCTURE_CODE.parallel;
      if (whole && blockOf[c] === -1) {
        // One fan-out for the whole parallel group, its calls relative to the first start.
        const first = startMs[c]!;
        fanStart[nb] = requestStartMs[req]! + first;
        for (let q = k; q < start[p + 1]!; q++) {
          const d = list[q]!;
          if (edge[d] !== e) continue;
          blockOf[d] = nb;
          wholeGroup[d] = 1;
          callStart[nc] = startMs[d]! - first;
          callNode[nc++] = d;
        }
        offsets[++nb] = nc;
      } else if (!whole) {
        blockOf[c] = nb;
        lone[nl] = c;
        loneBlock[nl++] = nb;
        fanStart[nb] = requestStartMs[req]! + startMs[c]!;
        callStart[nc] = 0;
        callNode[nc++] = c;
        offsets[++nb] = nc;
      }
    }
  }
  return {
    trees: t,
    childStart: start,
    childList: list,
    internal,
    lone: lone.subarray(0, nl),
    loneBlock: loneBlock.subarray(0, nl),
    blockOf,
    groupOf,
    groups: ng,
    groupRecordedMs: groupRec.subarray(0, ng),
    blocks: blockCalls(
      t,
      fanStart.subarray(0, nb),
      offsets.subarray(0, nb + 1),
      callStart,
      callNode,
    ),
    wholeGroup,
    maxChildren: most,
  };
}

function groupSpan(
  t: RequestTrees,
  start: Uint32Array,
  list: Uint32Array,
  p: number,
  e: number,
): number {
  let lo = Infinity;
  let hi = -Infinity;
  for (let k = start[p]!; k < start[p + 1]!; k++) {
    const c = list[k]!;
    if (t.edge[c] !== e) continue;
    lo = Math.min(lo, t.startMs[c]!);
    hi = Math.max(hi, t.startMs[c]! + t.durationMs[c]!);
  }
  return hi - lo;
}

function blockCalls(
  t: RequestTrees,
  fanStart: Float64Array,
  offsets: Uint32Array,
  callStart: Float64Array,
  nodes: Uint32Array,
): LeafCalls {
  // Plain loops: TypedArray.from with a map function is several times slower in V8.
  const n = nodes.length;
  const { durationMs: dur, host: hostOf, mode: modeOf } = t;
  const durationMs = new Float64Array(n);
  const host = new Uint32Array(n);
  const mode = new Uint32Array(n);
  for (let k = 0; k < n; k++) {
    const c = nodes[k]!;
    durationMs[k] = dur[c]!;
    host[k] = hostOf[c]!;
    mode[k] = modeOf[c]!;
  }
  return {
    fanoutOffsets: offsets,
    fanoutStartMs: fanStart,
    // Empty: the what-if replays never read trace ids, and 10 million empty strings would
    // cost a garbage collector scan each (blocks are named by position).
    traceIds: [],
    startMs: callStart,
    durationMs,
    host,
    mode,
    background: new Uint32Array(n),
    hosts: t.hosts,
    modes: t.modes,
    backgrounds: ['none'],
  };
}
