// The first implementation of the whole-request replay (issue #14), kept unchanged as the
// reference that request-replay-equivalence.test.ts compares the columnar version with, output
// for output. Not used at run time.
import type { LeafCalls } from '../../../src/types';
import { STRUCTURE_CODE, type RequestTrees } from '../../../src/whatif/request/trees/trees';

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
  /** All nodes, children before parents. */
  post: Uint32Array;
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

/** Children CSR (by recorded start, then end) and a children-first order. O(nodes log). */
function childrenOf(t: RequestTrees): {
  start: Uint32Array;
  list: Uint32Array;
  post: Uint32Array;
  most: number;
} {
  const n = t.parent.length;
  const count = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) if (t.parent[i]! >= 0) count[t.parent[i]! + 1]!++;
  for (let i = 0; i < n; i++) count[i + 1]! += count[i]!;
  const start = count;
  const fill = count.slice();
  const list = new Uint32Array(Math.max(0, count[n]!));
  for (let i = 0; i < n; i++) if (t.parent[i]! >= 0) list[fill[t.parent[i]!]!++] = i;
  let most = 0;
  for (let p = 0; p < n; p++) {
    const a = start[p]!;
    const b = start[p + 1]!;
    if (b - a > most) most = b - a;
    if (b - a > 1 && !inStartOrder(t, list, a, b)) {
      const kids = Array.from(list.subarray(a, b)).sort(
        (x, y) =>
          t.startMs[x]! - t.startMs[y]! ||
          t.startMs[x]! + t.durationMs[x]! - (t.startMs[y]! + t.durationMs[y]!) ||
          x - y,
      );
      list.set(kids, a);
    }
  }
  // Children-first. When every parent precedes its children (the usual storage order), that
  // is the reverse node order; otherwise a breadth-first order from the roots, reversed.
  let ordered = true;
  for (let i = 0; i < n && ordered; i++) if (t.parent[i]! >= i) ordered = false;
  if (ordered) {
    const post = new Uint32Array(n);
    for (let i = 0; i < n; i++) post[i] = n - 1 - i;
    return { start, list, post, most };
  }
  const bfs = new Uint32Array(n);
  let head = 0;
  let tail = 0;
  for (let i = 0; i < n; i++) if (t.parent[i]! < 0) bfs[tail++] = i;
  while (head < tail) {
    const p = bfs[head++]!;
    for (let k = start[p]!; k < start[p + 1]!; k++) bfs[tail++] = list[k]!;
  }
  return { start, list, post: bfs.subarray(0, tail).reverse(), most };
}

function inStartOrder(t: RequestTrees, list: Uint32Array, a: number, b: number): boolean {
  for (let k = a + 1; k < b; k++) {
    const x = list[k - 1]!;
    const y = list[k]!;
    const sx = t.startMs[x]!;
    const sy = t.startMs[y]!;
    if (sx > sy) return false;
    if (sx === sy && sx + t.durationMs[x]! > sy + t.durationMs[y]!) return false;
  }
  return true;
}

/** Prepares trees for replays of the target edges. O(nodes log). */
export function prepareRequests(t: RequestTrees, o: TargetOptions): PreparedRequests {
  const { start, list, post, most } = childrenOf(t);
  const n = t.parent.length;
  const blockOf = new Int32Array(n).fill(-1);
  const groupOf = new Int32Array(n).fill(-1);
  const wholeGroup = new Uint8Array(n);
  let targets = 0;
  for (let i = 0; i < n; i++) if (t.edge[i]! >= 0 && o.target[t.edge[i]!] === 1) targets++;
  const fanStart = new Float64Array(targets);
  const offsets = new Uint32Array(targets + 1);
  const callStart = new Float64Array(targets);
  const callNode = new Uint32Array(targets);
  let nb = 0; // blocks
  let nc = 0; // calls placed
  const groupRec: number[] = [];
  const seen = new Map<number, number>(); // edge -> group, per parent
  let req = 0;
  for (let p = 0; p < n; p++) {
    if (start[p] === start[p + 1]) continue;
    // p only grows: the request owning it is found by walking forward.
    while (t.nodeOffsets[req + 1]! <= p) req++;
    seen.clear();
    for (let k = start[p]!; k < start[p + 1]!; k++) {
      const c = list[k]!;
      const e = t.edge[c]!;
      if (e < 0 || o.target[e] !== 1) continue;
      let g = seen.get(e);
      if (g === undefined) {
        g = groupRec.length;
        seen.set(e, g);
        groupRec.push(groupSpan(t, start, list, p, e));
      }
      groupOf[c] = g;
      const whole = !o.perCall && t.structure[c] === STRUCTURE_CODE.parallel;
      if (whole && blockOf[c] === -1) {
        // One fan-out for the whole parallel group, its calls relative to the first start.
        const first = t.startMs[c]!;
        fanStart[nb] = t.requestStartMs[req]! + first;
        for (let q = k; q < start[p + 1]!; q++) {
          const d = list[q]!;
          if (t.edge[d] !== e) continue;
          blockOf[d] = nb;
          wholeGroup[d] = 1;
          callStart[nc] = t.startMs[d]! - first;
          callNode[nc++] = d;
        }
        offsets[++nb] = nc;
      } else if (!whole) {
        blockOf[c] = nb;
        fanStart[nb] = t.requestStartMs[req]! + t.startMs[c]!;
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
    post,
    blockOf,
    groupOf,
    groups: groupRec.length,
    groupRecordedMs: Float64Array.from(groupRec),
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
  const durationMs = new Float64Array(n);
  const host = new Uint32Array(n);
  const mode = new Uint32Array(n);
  for (let k = 0; k < n; k++) {
    const c = nodes[k]!;
    durationMs[k] = t.durationMs[c]!;
    host[k] = t.host[c]!;
    mode[k] = t.mode[c]!;
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
