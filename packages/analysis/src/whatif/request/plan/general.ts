/**
 * The plan of a request the general way (no shape program): its blocks and parents, node by node.
 */

import { STRUCTURE_CODE, type RequestTrees } from '../trees';
import { planParent, STATIC } from './parent';
import type { ParentScratch, PlanColumns, LocalRequest } from './columns';
import { SRC_CONST, SRC_LONE, SRC_PARENT } from './run';
import { DRIFT, DYN, formRequestBlocks, localChildren, type TargetBlocks } from './blocks';
import { compileShape } from './shape';
import type { ShapeBook } from './shape-book';
import type { ShapeRun } from './shape-order';
import type { TargetOptions } from '../replay';

export type GeneralLocal = LocalRequest & { lpar: Int32Array; bfs: Int32Array; flag: Uint8Array };

/** Local arrays for the biggest request, reused request after request. */
export function localArrays(m: number): GeneralLocal {
  return {
    a: 0,
    kStart: new Int32Array(m + 1),
    kList: new Int32Array(m),
    blockOf: new Int32Array(m),
    groupOf: new Int32Array(m),
    whole: new Uint8Array(m),
    lone: new Int32Array(m),
    slot: new Int32Array(m),
    cval: new Float64Array(m),
    lpar: new Int32Array(m),
    bfs: new Int32Array(m),
    flag: new Uint8Array(m),
  };
}

/**
 * Request q (nodes [L.a, L.a + m)) planned the general way (request/plan/plan.ts's rows, from its
 * local children lists), its source left in r; then, when the book wants it, its shape's
 * program compiled from what this left in L. Returns the most children of a planned parent.
 */
export function planGeneral(
  t: RequestTrees,
  L: GeneralLocal,
  m: number,
  q: number,
  o: TargetOptions & { workers?: number | undefined },
  tb: TargetBlocks,
  cols: PlanColumns,
  ps: ParentScratch,
  book: ShapeBook | undefined,
  r: ShapeRun,
): number {
  const a = L.a;
  const base = { nb: tb.nb, lone: tb.durationsOnly ? tb.nb : tb.loneBlock.n, ng: tb.ng };
  const ordered = localChildren(t, L, m, o.target);
  formRequestBlocks(t, L, m, q, tb, ordered);
  const most = planRequest(t, L, m, ordered, o.workers, cols, ps);
  const src = L.lone[0]! >= 0 ? SRC_LONE : L.slot[0]! >= 0 ? SRC_PARENT : SRC_CONST;
  r.kind = src;
  r.arg = src === SRC_LONE ? L.lone[0]! : src === SRC_PARENT ? L.slot[0]! : 0;
  r.val = L.slot[0] === STATIC ? L.cval[0]! : t.durationMs[a]!;
  if (ordered && book?.wanted(t, q, a, m) === true) {
    const c = { t, L, m, target: o.target, perCall: o.perCall, lean: tb.durationsOnly };
    book.add(t, q, a, compileShape({ ...c, workers: o.workers, base }));
  }
  return most;
}

/**
 * Children first (reverse node order when parents precede children, else breadth-first from
 * the roots, reversed), which nodes have a target call below (DYN) or a pool below (DRIFT) (set by localChildren
 * when ordered),
 * then each parent that needs it planned (planParent). Returns the most children of a parent.
 */
function planRequest(
  t: RequestTrees,
  L: GeneralLocal,
  m: number,
  ordered: boolean,
  workers: number | undefined,
  cols: PlanColumns,
  ps: ParentScratch,
): number {
  const { a, kStart, kList, lpar, bfs, flag } = L;
  let tail = m;
  if (!ordered) {
    tail = 0;
    for (let i = 0; i < m; i++) if (lpar[i]! < 0) bfs[tail++] = i;
    for (let head = 0; head < tail; head++) {
      const p = bfs[head]!;
      for (let k = kStart[p]!; k < kStart[p + 1]!; k++) bfs[tail++] = kList[k]!;
    }
  }
  let most = 1;
  for (let h = tail - 1; h >= 0; h--) {
    const x = ordered ? h : bfs[h]!;
    const nk = kStart[x + 1]! - kStart[x]!;
    if (flag[x] !== 0 && nk > 0 && L.lone[x]! < 0) {
      most = Math.max(most, nk);
      const P = planParent(t, L, x, (flag[x]! & DYN) !== 0, workers, cols, ps);
      if (P >= 0) L.slot[x] = P;
      else {
        L.slot[x] = STATIC;
        L.cval[x] = ps.st.ret[0]!;
      }
    }
    // Ordered: localChildren set the flags already.
    const p = lpar[x]!;
    if (ordered || p < 0) continue;
    if (L.groupOf[x]! >= 0 || (flag[x]! & DYN) !== 0) flag[p]! |= DYN;
    if (t.structure[a + x] === STRUCTURE_CODE.pool || (flag[x]! & DRIFT) !== 0) flag[p]! |= DRIFT;
  }
  return most;
}
