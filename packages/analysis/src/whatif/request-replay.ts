/* eslint-disable @typescript-eslint/no-non-null-assertion -- typed-array loops: every index is in
   bounds by construction (offsets, CSR lists), and a `?? 0` would hide an indexing bug as a zero. */
import type { LeafCalls } from '../types';
import { STRUCTURE_CODE, type RequestTrees } from './request-trees';
import { Arena, arenaBytes } from './arena';
import { childrenOf } from './request-children';

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
  /** Room for the recompute's per-node times (RecomputeScratch), in the same buffer. */
  nodeTimes: Float64Array;
}

export interface TargetOptions {
  /** Per edge: 1 when the edge is replayed under the policy. */
  target: Uint8Array;
  /** Every target call its own block (per-call policies on pools; the pool policy). */
  perCall: boolean;
}

/** Prepares trees for replays of the target edges. O(nodes), no per-node objects. */
export function prepareRequests(t: RequestTrees, o: TargetOptions): PreparedRequests {
  const n = t.parent.length;
  const { edge, structure, startMs, nodeOffsets, requestStartMs } = t;
  const target = o.target;
  let targets = 0;
  let children = 0;
  for (let i = 0; i < n; i++) {
    if (t.parent[i]! >= 0) children++;
    if (edge[i]! >= 0 && target[edge[i]!] === 1) targets++;
  }
  const arena = new Arena(
    arenaBytes(4 * (n + 1)) +
      arenaBytes(4 * children) +
      2 * arenaBytes(4 * n) +
      arenaBytes(n) +
      arenaBytes(4 * (targets + 1)) +
      4 * arenaBytes(8 * targets) +
      6 * arenaBytes(4 * targets) +
      arenaBytes(8 * n),
  );
  const { start, list, internal, most } = childrenOf(t, children, arena);
  const blockOf = arena.i32(n).fill(-1);
  const groupOf = arena.i32(n).fill(-1);
  const wholeGroup = arena.u8(n);
  const fanStart = arena.f64(targets);
  const offsets = arena.u32(targets + 1);
  const callStart = arena.f64(targets);
  const callNode = arena.u32(targets);
  const lone = arena.u32(targets);
  const loneBlock = arena.u32(targets);
  const groupRec = arena.f64(targets);
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
      arena,
    ),
    wholeGroup,
    maxChildren: most,
    nodeTimes: arena.f64(n),
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
  arena: Arena,
): LeafCalls {
  // Plain loops: TypedArray.from with a map function is several times slower in V8.
  const n = nodes.length;
  const { durationMs: dur, host: hostOf, mode: modeOf } = t;
  const durationMs = arena.f64(n);
  const host = arena.u32(n);
  const mode = arena.u32(n);
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
    background: arena.u32(n),
    hosts: t.hosts,
    modes: t.modes,
    backgrounds: ['none'],
  };
}
