/**
 * A request's children formed into blocks (a call, or a whole target group), the plan's rows.
 */

import type { LeafCalls } from '../../../types';
import { STRUCTURE_CODE, type RequestTrees } from '../trees';
import type { TargetOptions } from '../replay';
import { GrowI32 } from './grow';
import { Arena, arenaBytes, type ArenaMemory } from '../arena';
import type { LocalRequest } from './columns';

/** L.flag: a target call below the node (DYN), a pool below it (DRIFT). */
export const DYN = 1;
export const DRIFT = 2;

/**
 * One request's children CSR in local indexes (request/replay/children.ts's order: recorded start,
 * then end, then node), with lpar the local parent (-1: a root or a parent outside), and every
 * per-node column of L reset in the same pass (a builtin fill per column per request costs
 * more than the work). Returns whether every parent precedes its children. When they do, the
 * flags (DYN, DRIFT) are set here, in the pass that fills the lists, and only the flagged
 * parents' children are put in order: nobody reads the others' order (for the microservices
 * preset's route, 12 of 30 nodes hang below parents without a target call or pool).
 */
export function localChildren(
  t: RequestTrees,
  L: LocalRequest & { lpar: Int32Array; flag: Uint8Array },
  m: number,
  target: Uint8Array,
): boolean {
  const { a, kStart, kList, lpar } = L;
  for (let i = 0; i <= m; i++) kStart[i] = 0;
  let ordered = true;
  for (let i = 0; i < m; i++) {
    const p = t.parent[a + i]! - a;
    const lp = p >= 0 && p < m ? p : -1;
    lpar[i] = lp;
    if (lp >= 0) kStart[lp]!++;
    if (lp >= i) ordered = false;
    resetNode(L, i);
    L.flag[i] = 0;
  }
  let sum = 0;
  for (let i = 0; i < m; i++) kStart[i] = sum += kStart[i]!;
  kStart[m] = sum;
  if (ordered) {
    // Children first (every parent precedes its children): a node's flags are final when its
    // parent takes them.
    const { edge, structure } = t;
    const flag = L.flag;
    for (let i = m - 1; i >= 0; i--) {
      const lp = lpar[i]!;
      if (lp < 0) continue;
      kList[--kStart[lp]!] = i;
      const e = edge[a + i]!;
      const f = flag[i]!;
      if ((e >= 0 && target[e] === 1) || (f & DYN) !== 0) flag[lp]! |= DYN;
      if (structure[a + i] === STRUCTURE_CODE.pool || (f & DRIFT) !== 0) flag[lp]! |= DRIFT;
    }
  } else for (let i = m - 1; i >= 0; i--) if (lpar[i]! >= 0) kList[--kStart[lpar[i]!]!] = i;
  const { startMs: s, durationMs: d } = t;
  for (let p = 0; p < m; p++) {
    const lo = kStart[p]!;
    const hi = kStart[p + 1]!;
    if (hi - lo < 2 || (ordered && L.flag[p] === 0)) continue;
    let inOrder = true;
    for (let k = lo + 1; k < hi && inOrder; k++) {
      const x = a + kList[k - 1]!;
      const y = a + kList[k]!;
      inOrder = !(s[x]! > s[y]!) && !(s[x] === s[y] && s[x]! + d[x]! > s[y]! + d[y]!);
    }
    if (!inOrder) sortKids(t, a, kList, lo, hi);
  }
  return ordered;
}

/** The columns formRequestBlocks and planning read, cleared for local node i (inlined). */
function resetNode(L: LocalRequest, i: number): void {
  L.blockOf[i] = -1;
  L.groupOf[i] = -1;
  L.whole[i] = 0;
  L.lone[i] = -1;
  L.slot[i] = -1;
}

/** By recorded start, then end, then node (request/replay/children.ts's childOrder). */
function kidOrder(t: RequestTrees, a: number, x: number, y: number): number {
  const s = t.startMs;
  const d = t.durationMs;
  return s[a + x]! - s[a + y]! || s[a + x]! + d[a + x]! - (s[a + y]! + d[a + y]!) || x - y;
}

/**
 * Sorts kList[lo, hi) (local nodes of the request at a) by kidOrder: in place by insertion when
 * few (a pool's tied starts, the common case: no closure or array per request), else the array
 * sort. Shared with the shape runs (request/plan/shape-order.ts), which must order as this does.
 */
export function sortKids(
  t: RequestTrees,
  a: number,
  kList: Int32Array,
  lo: number,
  hi: number,
): void {
  if (hi - lo > 32) {
    const kids = Array.from(kList.subarray(lo, hi)).sort((x, y) => kidOrder(t, a, x, y));
    kList.set(kids, lo);
    return;
  }
  for (let i = lo + 1; i < hi; i++) {
    const x = kList[i]!;
    let j = i;
    while (j > lo && kidOrder(t, a, kList[j - 1]!, x) > 0) {
      kList[j] = kList[j - 1]!;
      j--;
    }
    kList[j] = x;
  }
}

/**
 * The target calls as the policy's LeafCalls, numbered as request/replay/replay.ts's formBlocks
 * numbers them (parents in node order, children in start order): a whole target parallel group
 * one fan-out, any other target call its own.
 */
export class TargetBlocks {
  readonly fanStart: Float64Array;
  readonly offsets: Uint32Array;
  readonly callStart: Float64Array;
  readonly durationMs: Float64Array;
  readonly host: Uint32Array;
  readonly mode: Uint32Array;
  readonly groupRec: Float64Array;
  readonly background: Uint32Array;
  /** Room for each lone call's subtrahend (request/plan/plan.ts). */
  readonly loneSub: Float64Array;
  readonly loneBlock = new GrowI32(1024);
  nb = 0;
  nc = 0;
  ng = 0;
  repeated = false;
  /** Per edge: the (global) parent whose group it last started, and that group. */
  readonly stamp: Int32Array;
  readonly groupOfEdge: Int32Array;

  constructor(
    private readonly t: RequestTrees,
    readonly o: TargetOptions,
    targets: number,
    /**
     * Fill only the calls' durations and the block offsets (the pool policy reads nothing else,
     * and every block is one call starting at 0): the other columns are left empty. At 1M
     * requests they were ~320 MB written and page-faulted for nothing.
     */
    readonly durationsOnly = false,
    /** Reused buffers (their contents not zero: what is read before written is cleared). */
    memory?: ArenaMemory,
  ) {
    if (durationsOnly && !o.perCall) throw new Error('durationsOnly needs perCall');
    const full = durationsOnly ? 0 : targets;
    // One buffer (see arena.ts): eight 10-million-call columns allocated one by one cost a
    // full collection each.
    const arena = new Arena(
      2 * arenaBytes(8 * targets) +
        3 * arenaBytes(8 * full) +
        arenaBytes(4 * (targets + 1)) +
        3 * arenaBytes(4 * full),
      memory,
      0,
    );
    this.fanStart = arena.f64(full);
    this.offsets = arena.u32(targets + 1);
    this.callStart = arena.f64(full);
    this.durationMs = arena.f64(targets);
    this.host = arena.u32(full);
    this.mode = arena.u32(full);
    this.groupRec = arena.f64(targets);
    this.background = arena.u32(full);
    this.loneSub = arena.f64(full);
    this.offsets[0] = 0;
    if (memory) this.background.fill(0);
    this.stamp = new Int32Array(o.target.length).fill(-1);
    this.groupOfEdge = new Int32Array(o.target.length);
  }

  /** Group of the edge-e calls of global parent p, started at the first call seen. */
  group(p: number, e: number, L: LocalRequest, lp: number): number {
    if (this.stamp[e] === p) {
      this.repeated = true;
      return this.groupOfEdge[e]!;
    }
    this.stamp[e] = p;
    this.groupOfEdge[e] = this.ng;
    let lo = Infinity;
    let hi = -Infinity;
    for (let k = L.kStart[lp]!; k < L.kStart[lp + 1]!; k++) {
      const c = L.a + L.kList[k]!;
      if (this.t.edge[c] !== e) continue;
      lo = Math.min(lo, this.t.startMs[c]!);
      hi = Math.max(hi, this.t.startMs[c]! + this.t.durationMs[c]!);
    }
    this.groupRec[this.ng] = hi - lo;
    return this.ng++;
  }

  leafCalls(): LeafCalls {
    const n = this.durationsOnly ? 0 : this.nc;
    return {
      fanoutOffsets: this.offsets.subarray(0, this.nb + 1),
      fanoutStartMs: this.fanStart.subarray(0, this.durationsOnly ? 0 : this.nb),
      // Empty: the what-if replays never read trace ids (blocks are named by position).
      traceIds: [],
      startMs: this.callStart.subarray(0, n),
      durationMs: this.durationMs.subarray(0, this.nc),
      host: this.host.subarray(0, n),
      mode: this.mode.subarray(0, n),
      background: this.background.subarray(0, n),
      hosts: this.t.hosts,
      modes: this.t.modes,
      backgrounds: ['none'],
    };
  }
}

/** formBlocks for one request q (local CSR in L, reset by localChildren): fills L's blockOf, groupOf, whole, lone. */
export function formRequestBlocks(
  t: RequestTrees,
  L: LocalRequest & { flag: Uint8Array },
  m: number,
  q: number,
  b: TargetBlocks,
  /** localChildren set the flags: parents without DYN have no target call below. */
  flagged: boolean,
): void {
  const { a, kStart, kList, blockOf, groupOf, lone } = L;
  // Locals, not fields: this runs for every target call of a million requests.
  const { edge, startMs, durationMs, host, mode, structure } = t;
  const { fanStart, offsets, callStart, stamp, groupOfEdge } = b;
  const reqStart = t.requestStartMs[q]!;
  const perCall = b.o.perCall;
  const lean = b.durationsOnly;
  const target = b.o.target;
  let { nb, nc } = b;
  let mixed = false;
  const flag = L.flag;
  for (let p = 0; p < m; p++) {
    if (flagged && (flag[p]! & DYN) === 0) continue;
    for (let k = kStart[p]!; k < kStart[p + 1]!; k++) {
      const c = kList[k]!;
      const e = edge[a + c]!;
      if (e < 0 || target[e] !== 1) continue;
      // The group's later calls: found by the stamp here (a call per target call cost more).
      if (stamp[e] === a + p) {
        b.repeated = true;
        groupOf[c] = groupOfEdge[e]!;
      } else groupOf[c] = b.group(a + p, e, L, p);
      const whole = !perCall && structure[a + c] === STRUCTURE_CODE.parallel;
      if (whole && blockOf[c] === -1) {
        const first = startMs[a + c]!;
        fanStart[nb] = reqStart + first;
        for (let r = k; r < kStart[p + 1]!; r++) {
          const d = kList[r]!;
          const g = a + d;
          if (edge[g] !== e) continue;
          blockOf[d] = nb;
          L.whole[d] = 1;
          if (lone[d]! >= 0) mixed = true;
          callStart[nc] = startMs[g]! - first;
          b.durationMs[nc] = durationMs[g]!;
          b.host[nc] = host[g]!;
          b.mode[nc++] = mode[g]!;
        }
        offsets[++nb] = nc;
      } else if (!whole && lean) {
        // durationsOnly: perCall, so every target call is lone (whole is never set), and lone
        // call l is block l (loneBlock is left empty).
        blockOf[c] = nb;
        lone[c] = nb;
        b.durationMs[nc++] = durationMs[a + c]!;
        offsets[++nb] = nc;
      } else if (!whole) {
        const g = a + c;
        if (L.whole[c] === 1) mixed = true;
        blockOf[c] = nb;
        lone[c] = b.loneBlock.n;
        b.loneBlock.push(nb);
        fanStart[nb] = reqStart + startMs[g]!;
        callStart[nc] = 0;
        b.durationMs[nc] = durationMs[g]!;
        b.host[nc] = host[g]!;
        b.mode[nc++] = mode[g]!;
        offsets[++nb] = nc;
      }
    }
  }
  b.nb = nb;
  b.nc = nc;
  // A group of mixed structures (not from real traces): a call made lone before the group's
  // parallel call made it whole replays whole, as request-recompute.ts does (its lone block
  // keeps its number, so the policy's draws do not move).
  if (mixed) for (let i = 0; i < m; i++) if (L.whole[i] === 1) L.lone[i] = -1;
}
