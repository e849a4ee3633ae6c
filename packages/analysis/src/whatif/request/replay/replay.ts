/**
 * The whole-request replay's model: the target edge's calls re-timed, every ancestor
 * recomputed from its children's blocks.
 */

import type { LeafCalls } from '../../../types';
import { STRUCTURE_CODE, type RequestTrees } from '../trees';
import { Arena, arenaBytes } from '../arena';
import { childrenOf } from './children';

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
  const { arena, children, targets } = sizedArena(t, o.target);
  const { start, list, internal, most } = childrenOf(t, children, arena);
  const b: BlockColumns = {
    blockOf: arena.i32(n).fill(-1),
    groupOf: arena.i32(n).fill(-1),
    wholeGroup: arena.u8(n),
    fanStart: arena.f64(targets),
    offsets: arena.u32(targets + 1),
    callStart: arena.f64(targets),
    callNode: arena.u32(targets),
    lone: arena.u32(targets),
    loneBlock: arena.u32(targets),
    groupRec: arena.f64(targets),
    nb: 0,
    nc: 0,
    nl: 0,
    ng: 0,
  };
  formBlocks(t, o, start, list, b);
  return {
    trees: t,
    childStart: start,
    childList: list,
    internal,
    lone: b.lone.subarray(0, b.nl),
    loneBlock: b.loneBlock.subarray(0, b.nl),
    blockOf: b.blockOf,
    groupOf: b.groupOf,
    groups: b.ng,
    groupRecordedMs: b.groupRec.subarray(0, b.ng),
    blocks: blockCalls(
      t,
      b.fanStart.subarray(0, b.nb),
      b.offsets.subarray(0, b.nb + 1),
      b.callStart,
      b.callNode,
      arena,
    ),
    wholeGroup: b.wholeGroup,
    maxChildren: most,
    nodeTimes: arena.f64(n),
  };
}

/** One buffer for every column prepareRequests and blockCalls take (see arena.ts). */
function sizedArena(
  t: RequestTrees,
  target: Uint8Array,
): { arena: Arena; children: number; targets: number } {
  const n = t.parent.length;
  let targets = 0;
  let children = 0;
  for (let i = 0; i < n; i++) {
    if (t.parent[i]! >= 0) children++;
    if (t.edge[i]! >= 0 && target[t.edge[i]!] === 1) targets++;
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
  return { arena, children, targets };
}

/** The target calls' blocks as formBlocks fills them, with the counts so far. */
interface BlockColumns {
  blockOf: Int32Array;
  groupOf: Int32Array;
  wholeGroup: Uint8Array;
  fanStart: Float64Array;
  offsets: Uint32Array;
  callStart: Float64Array;
  callNode: Uint32Array;
  lone: Uint32Array;
  loneBlock: Uint32Array;
  groupRec: Float64Array;
  /** Blocks, calls placed, lone blocks, groups. */
  nb: number;
  nc: number;
  nl: number;
  ng: number;
}

/**
 * Groups the target calls of every parent (in node order, so numbering follows storage) and
 * forms their blocks: a whole target parallel group, or one call.
 */
function formBlocks(
  t: RequestTrees,
  o: TargetOptions,
  start: Uint32Array,
  list: Uint32Array,
  b: BlockColumns,
): void {
  const n = t.parent.length;
  const { edge, structure, startMs, nodeOffsets, requestStartMs } = t;
  const { blockOf, groupOf, wholeGroup, fanStart, offsets, callStart, callNode } = b;
  const target = o.target;
  let { nb, nc, nl, ng } = b;
  // Edge -> group of the current parent: a stamp per edge instead of a map cleared per parent.
  const stamp = new Int32Array(target.length).fill(-1);
  const groupOfEdge = new Int32Array(target.length);
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
        b.groupRec[ng++] = groupSpan(t, start, list, p, e);
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
        b.lone[nl] = c;
        b.loneBlock[nl++] = nb;
        fanStart[nb] = requestStartMs[req]! + startMs[c]!;
        callStart[nc] = 0;
        callNode[nc++] = c;
        offsets[++nb] = nc;
      }
    }
  }
  Object.assign(b, { nb, nc, nl, ng });
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
