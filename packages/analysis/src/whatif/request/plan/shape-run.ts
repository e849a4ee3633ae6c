/**
 * A request planned by its shape's program: the rows the general path writes, in the same order.
 */

import type { RequestTrees } from '../trees';
import type { ParentScratch, PlanColumns } from './columns';
import { closeParent } from './parent';
import type { TargetBlocks } from './blocks';
import {
  OP_SINGLE,
  OP_WHOLE,
  S_DUR,
  S_LONE,
  S_PARENT,
  S_STATIC,
  TB_LEAN,
  TB_WHOLE,
  type Shape,
} from './shape';
import { inOrder, resetMap, type ShapeRun } from './shape-order';
import { runConstPool, SRC_CONST, SRC_LONE, SRC_PARENT, SRC_POOL, SRC_WHOLE } from './run';

/**
 * Request q (nodes from a) planned by its shape's program: the rows the general path
 * (localChildren, formRequestBlocks, planRequest) writes, in the same order, from the
 * request's recorded times. Returns false, having written nothing, when a checked parent's
 * children are not in recorded start order (the general path sorts them: it plans this one).
 */
export function runShape(
  t: RequestTrees,
  S: Shape,
  q: number,
  a: number,
  tb: TargetBlocks,
  cols: PlanColumns,
  ps: ParentScratch,
  r: ShapeRun,
): boolean {
  const prog = S.prog;
  let at = inOrder(t, a, S, r);
  if (at < 0) {
    if (r.permuted) resetMap(r, S.m);
    return false;
  }
  const map = r.map;
  const { startMs: s, durationMs: d } = t;
  // Target groups: recorded span of each (TargetBlocks.group).
  const ng0 = tb.ng;
  for (let g = prog[at++]!; g > 0; g--) {
    const len = prog[at++]!;
    let lo = Infinity;
    let hi = -Infinity;
    for (let k = 0; k < len; k++) {
      const c = a + map[prog[at++]!]!;
      lo = Math.min(lo, s[c]!);
      hi = Math.max(hi, s[c]! + d[c]!);
    }
    tb.groupRec[tb.ng++] = hi - lo;
  }
  if (S.repeated) tb.repeated = true;
  const nb0 = tb.nb;
  const loneBase = tb.durationsOnly ? nb0 : tb.loneBlock.n;
  at = targetBlocks(t, prog, at, a, t.requestStartMs[q]!, tb, map);
  for (let P = prog[at++]!; P > 0; P--)
    at = parentRows(t, prog, at, a, nb0, ng0, loneBase, cols, ps, r);
  const kind = prog[at++]!;
  const arg = prog[at]!;
  r.kind = kind === S_LONE ? SRC_LONE : kind === S_PARENT ? SRC_PARENT : SRC_CONST;
  r.arg = kind === S_LONE ? loneBase + arg : kind === S_PARENT ? r.slot[0]! : 0;
  r.val = kind === S_DUR || kind === S_LONE || kind === S_PARENT ? d[a]! : r.cval[0]!;
  if (r.permuted) resetMap(r, S.m);
  return true;
}

/** Section 3: the target calls as blocks (formRequestBlocks' writes). Returns the next position. */
function targetBlocks(
  t: RequestTrees,
  prog: Int32Array,
  at: number,
  a: number,
  reqStart: number,
  tb: TargetBlocks,
  map: Int32Array,
): number {
  const { startMs: s, durationMs: d, host, mode } = t;
  const { fanStart, offsets, callStart } = tb;
  let { nb, nc } = tb;
  for (let b = prog[at++]!; b > 0; b--) {
    const kind = prog[at++]!;
    const len = prog[at++]!;
    if (kind === TB_LEAN) {
      tb.durationMs[nc++] = d[a + map[prog[at++]!]!]!;
      offsets[++nb] = nc;
      continue;
    }
    const first = s[a + map[prog[at]!]!]!;
    if (kind === TB_WHOLE) fanStart[nb] = reqStart + first;
    else {
      tb.loneBlock.push(nb);
      fanStart[nb] = reqStart + first;
    }
    for (let k = 0; k < len; k++) {
      const g = a + map[prog[at++]!]!;
      callStart[nc] = kind === TB_WHOLE ? s[g]! - first : 0;
      tb.durationMs[nc] = d[g]!;
      tb.host[nc] = host[g]!;
      tb.mode[nc++] = mode[g]!;
    }
    offsets[++nb] = nc;
  }
  tb.nb = nb;
  tb.nc = nc;
  return at;
}

/** One planned parent (planParent's rows). Returns the next position. */
function parentRows(
  t: RequestTrees,
  prog: Int32Array,
  at: number,
  a: number,
  nb0: number,
  ng0: number,
  loneBase: number,
  c: PlanColumns,
  ps: ParentScratch,
  r: ShapeRun,
): number {
  const { startMs: s, durationMs: d } = t;
  const p = prog[at++]!;
  const dynamic = prog[at++] === 1;
  const nk = prog[at++]!;
  const nb = prog[at++]!;
  ps.fit(nk);
  const b0 = c.bKind.n;
  const cbc0 = c.cbcGroup.n;
  // Room for the nb blocks made once; the loop writes the columns in place (a pool block's
  // own rows go through poolRows, which sets the counts it writes).
  const bStart = c.bStart.ensure(nb);
  const bFan = c.bFan.ensure(nb);
  const bKind = c.bKind.ensure(nb);
  const bArg = c.bArg.ensure(nb);
  const bVal = c.bVal.ensure(nb);
  const { bEnd, bGrp } = ps;
  const { slot, cval, map } = r;
  for (let i = 0; i < nb; i++) {
    const j = b0 + i;
    const op = prog[at++]!;
    const ch = a + map[prog[at++]!]!;
    bStart[j] = s[ch]!;
    if (op === OP_SINGLE) {
      bEnd[i] = s[ch]! + d[ch]!;
      const sk = prog[at++]!;
      const sa = prog[at++]!;
      const g = prog[at++]!;
      bGrp[i] = g >= 0 ? ng0 + g : -1;
      bKind[j] = sk === S_LONE ? SRC_LONE : sk === S_PARENT ? SRC_PARENT : SRC_CONST;
      bArg[j] = sk === S_LONE ? loneBase + sa : sk === S_PARENT ? slot[sa]! : 0;
      bVal[j] = sk === S_DUR ? d[a + map[sa]!]! : sk === S_STATIC ? cval[sa]! : 0;
      bFan[j] = -1;
      continue;
    }
    bGrp[i] = -1;
    if (op === OP_WHOLE) {
      const block = prog[at++]!;
      const fan = prog[at++]!;
      const len = prog[at++]!;
      let end = -Infinity;
      for (let k = 0; k < len; k++) {
        const x = a + map[prog[at++]!]!;
        end = Math.max(end, s[x]! + d[x]!);
      }
      bEnd[i] = end;
      bKind[j] = SRC_WHOLE;
      bArg[j] = nb0 + block;
      bVal[j] = 0;
      bFan[j] = fan >= 0 ? ng0 + fan : -1;
      continue;
    }
    const fan = prog[at++]!;
    at = poolRows(t, prog, at, a, s[ch]!, loneBase, c, ps, r, i);
    bKind[j] = r.kind;
    bArg[j] = r.arg;
    bVal[j] = r.val;
    bFan[j] = fan >= 0 ? ng0 + fan : -1;
  }
  c.bStart.n = c.bFan.n = c.bKind.n = c.bArg.n = c.bVal.n = b0 + nb;
  const v = closeParent(b0, cbc0, nb, d[a + p]!, dynamic, c, ps);
  r.slot[p] = v;
  if (v < 0) r.cval[p] = ps.st.ret[0]!;
  return at;
}

/**
 * A pool block (planPool's rows): the recorded dispatch delays, the calls' sources, and the
 * block's source (constant span, or pool) left in r. Leaves the group's recorded end in
 * ps.bEnd[i]. Returns the next position.
 */
function poolRows(
  t: RequestTrees,
  prog: Int32Array,
  at: number,
  a: number,
  first: number,
  loneBase: number,
  c: PlanColumns,
  ps: ParentScratch,
  r: ShapeRun,
  i: number,
): number {
  const { startMs: s, durationMs: d } = t;
  const target = prog[at++] === 1;
  const constant = prog[at++] === 1;
  const run = prog[at++] === 1;
  const lone0 = loneBase + prog[at++]!;
  const kr = prog[at++]!;
  const kn = prog[at++]!;
  const n = prog[at++]!;
  const { recFree } = ps;
  const map = r.map;
  for (let w = 0; w < kr; w++) recFree[w] = 0;
  const g0 = c.pcKind.n;
  const d0 = c.pcDelay.n;
  // A constant pool (no target below) is scheduled here, from scratch: its rows are not kept.
  const fixed = constant && !target;
  const kind = c.pcKind.ensure(n);
  const arg = c.pcArg.ensure(n);
  const val = fixed ? ps.poolVal : c.pcVal.ensure(n);
  const delay = fixed ? ps.poolDelay : c.pcDelay.ensure(n);
  const o = fixed ? 0 : d0;
  const ov = fixed ? 0 : g0;
  let end = -Infinity;
  for (let j = 0; j < n; j++) {
    const x = a + map[prog[at++]!]!;
    const rs = s[x]! - first;
    let wr = 0;
    for (let w = 1; w < kr; w++) if (recFree[w]! < recFree[wr]!) wr = w;
    delay[o + j] = rs - recFree[wr]!;
    recFree[wr] = rs + d[x]!;
    end = Math.max(end, s[x]! + d[x]!);
    const sk = prog[at++]!;
    const sa = prog[at++]!;
    if (run) continue; // implied by lone0 (PlanArrays.poolSrc)
    val[ov + j] = sk === S_DUR ? d[a + map[sa]!]! : sk === S_STATIC ? r.cval[sa]! : 0;
    if (fixed) continue;
    kind[g0 + j] = sk === S_LONE ? SRC_LONE : sk === S_PARENT ? SRC_PARENT : SRC_CONST;
    arg[g0 + j] = sk === S_LONE ? loneBase + sa : sk === S_PARENT ? r.slot[sa]! : 0;
  }
  ps.bEnd[i] = end;
  if (fixed) {
    r.kind = SRC_CONST;
    r.arg = 0;
    r.val = runConstPool(kn, n, delay, val, ps.st.free);
    return at;
  }
  c.pcDelay.n = d0 + n;
  if (!run || n === 0) c.pcKind.n = c.pcArg.n = c.pcVal.n = g0 + n;
  r.kind = SRC_POOL;
  r.arg = c.poolKn.n;
  r.val = 0;
  c.poolKn.push(target ? -n : kn);
  c.poolC0.push(c.pcDelay.n);
  c.poolSrc.push(run && n > 0 ? -1 - lone0 : g0);
  return at;
}
