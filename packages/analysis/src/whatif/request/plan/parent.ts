/**
 * A parent's children planned as blocks, with its recorded-only work precomputed.
 */

import { STRUCTURE_CODE, type RequestTrees } from '../trees';
import type { LocalRequest, ParentScratch, PlanColumns } from './columns';
import { runParent, runPool, SRC_CONST, SRC_LONE, SRC_PARENT, SRC_POOL, SRC_WHOLE } from './run';

/** LocalRequest.slot of a parent evaluated once when planned. */
export const STATIC = -2;

/**
 * Plans local parent p's children as blocks (request-recompute.ts's shiftOfChildren: a call,
 * or a whole group when it is a target parallel group or is scheduled as a pool), appending
 * to the block columns. `workers`: the pool policy's k, else undefined. Returns the number of
 * blocks.
 */
export function planBlocks(
  t: RequestTrees,
  L: LocalRequest,
  p: number,
  workers: number | undefined,
  c: PlanColumns,
  s: ParentScratch,
): number {
  const { a, kStart, kList } = L;
  const k0 = kStart[p]!;
  const k1 = kStart[p + 1]!;
  s.fit(k1 - k0);
  for (let i = 0; i < k1 - k0; i++) s.used[i] = 0;
  // Room for a block per child made once; the loop writes the columns in place.
  const bStart = c.bStart.ensure(k1 - k0);
  const bFan = c.bFan.ensure(k1 - k0);
  const bKind = c.bKind.ensure(k1 - k0);
  const bArg = c.bArg.ensure(k1 - k0);
  const bVal = c.bVal.ensure(k1 - k0);
  let nb = 0;
  for (let k = k0; k < k1; k++) {
    if (s.used[k - k0] === 1) continue;
    const ch = kList[k]!;
    const g = a + ch;
    const target = L.groupOf[ch]! >= 0;
    const st = t.structure[g]!;
    const grouped =
      L.whole[ch] === 1 ||
      st === STRUCTURE_CODE.pool ||
      (target && workers !== undefined && st !== STRUCTURE_CODE.single);
    bStart[c.bStart.n++] = t.startMs[g]!;
    if (!grouped) {
      s.bEnd[nb] = t.startMs[g]! + t.durationMs[g]!;
      s.bGrp[nb] = target ? L.groupOf[ch]! : -1;
      // Its source: a lone target call (the policy's time), a planned parent, or a constant.
      const j = c.bKind.n++;
      if (L.lone[ch]! >= 0) {
        bKind[j] = SRC_LONE;
        bArg[j] = L.lone[ch]!;
        bVal[j] = 0;
      } else if (L.slot[ch]! >= 0) {
        bKind[j] = SRC_PARENT;
        bArg[j] = L.slot[ch]!;
        bVal[j] = 0;
      } else {
        bKind[j] = SRC_CONST;
        bArg[j] = 0;
        bVal[j] = L.slot[ch] === STATIC ? L.cval[ch]! : t.durationMs[g]!;
      }
      c.bArg.n = c.bVal.n = j + 1;
      bFan[c.bFan.n++] = -1;
      nb++;
      continue;
    }
    s.bGrp[nb] = -1;
    const e = t.edge[g]!;
    let end = -Infinity;
    for (let q = k; q < k1; q++) {
      const d = a + kList[q]!;
      if (t.edge[d] !== e) continue;
      s.used[q - k0] = 1;
      end = Math.max(end, t.startMs[d]! + t.durationMs[d]!);
    }
    s.bEnd[nb] = end;
    if (L.whole[ch] === 1) {
      c.bKind.push(SRC_WHOLE);
      c.bArg.push(L.blockOf[ch]!);
      c.bVal.push(0);
    } else {
      const policyK = target && workers !== undefined;
      planPool(t, L, policyK ? workers : t.concurrency[g]!, policyK, k, k1, e, c, s);
    }
    bFan[c.bFan.n++] = target ? L.groupOf[ch]! : -1;
    nb++;
  }
  return nb;
}

/**
 * A pool group (local children kFirst.. of edge e) on kw workers (`target`: the pool policy's
 * group, its workers given at replay time): the recorded schedule's
 * dispatch delays (request-recompute.ts's poolSpan on the recorded concurrency) computed once.
 * A group whose calls all keep constant times has a constant span: computed here, pushed as a
 * constant block; otherwise pushed as a pool block.
 */
function planPool(
  t: RequestTrees,
  L: LocalRequest,
  kw: number,
  target: boolean,
  kFirst: number,
  k1: number,
  e: number,
  c: PlanColumns,
  s: ParentScratch,
): void {
  const { a, kList } = L;
  const first = t.startMs[a + kList[kFirst]!]!;
  let n = 0;
  for (let q = kFirst; q < k1; q++) if (t.edge[a + kList[q]!] === e) n++;
  const kr = Math.max(1, Math.min(n, t.concurrency[a + kList[kFirst]!]!));
  const kn = Math.max(1, Math.min(n, kw));
  const recFree = s.recFree;
  for (let i = 0; i < kr; i++) recFree[i] = 0;
  const g0 = c.pcKind.n;
  const d0 = c.pcDelay.n;
  // Written in place (the n calls' room made once) rather than pushed value by value.
  const kind = c.pcKind.ensure(n);
  const arg = c.pcArg.ensure(n);
  const val = c.pcVal.ensure(n);
  const delay = c.pcDelay.ensure(n);
  const { startMs, durationMs, edge } = t;
  const { lone, slot, cval } = L;
  let j = 0;
  let constant = true;
  // Whether call j is lone call lone0 + j for every j (the pool policy's group).
  const lone0 = lone[kList[kFirst]!]!;
  let run = lone0 >= 0;
  for (let q = kFirst; q < k1; q++) {
    const d = kList[q]!;
    if (edge[a + d] !== e) continue;
    const rs = startMs[a + d]! - first;
    let wr = 0;
    for (let i = 1; i < kr; i++) if (recFree[i]! < recFree[wr]!) wr = i;
    delay[d0 + j] = rs - recFree[wr]!;
    recFree[wr] = rs + durationMs[a + d]!;
    // Its source, as a block's in planBlocks.
    if (lone[d] !== lone0 + j) run = false;
    if (lone[d]! >= 0) {
      kind[g0 + j] = SRC_LONE;
      arg[g0 + j] = lone[d]!;
      val[g0 + j] = 0;
      constant = false;
    } else if (slot[d]! >= 0) {
      kind[g0 + j] = SRC_PARENT;
      arg[g0 + j] = slot[d]!;
      val[g0 + j] = 0;
      constant = false;
    } else {
      kind[g0 + j] = SRC_CONST;
      arg[g0 + j] = 0;
      val[g0 + j] = slot[d] === STATIC ? cval[d]! : durationMs[a + d]!;
    }
    j++;
  }
  c.pcKind.n = c.pcArg.n = c.pcVal.n = g0 + j;
  c.pcDelay.n = d0 + j;
  if (constant && !target) {
    runPool(kn, d0, d0 + j, g0, { pcKind: kind, pcArg: arg, pcVal: val, pcDelay: delay }, s.st);
    c.pcKind.n = c.pcArg.n = c.pcVal.n = g0;
    c.pcDelay.n = d0;
    c.bKind.push(SRC_CONST);
    c.bArg.push(0);
    c.bVal.push(s.st.ret[0]!);
    return;
  }
  c.bKind.push(SRC_POOL);
  c.bArg.push(c.poolKn.n);
  c.bVal.push(0);
  // The pool policy's target group: -calls, its workers given at replay time (PlanState), so
  // one plan serves every k the slider asks for.
  c.poolKn.push(target ? -n : kn);
  c.poolC0.push(c.pcDelay.n);
  // Consecutive lone calls: their sources are implied (the columns written above are reused).
  if (run && j > 0) {
    c.pcKind.n = c.pcArg.n = c.pcVal.n = g0;
    c.poolSrc.push(-1 - lone0);
  } else c.poolSrc.push(g0);
}

/**
 * The sweep's recorded-only part (request-recompute.ts's sweep) for the nb blocks just pushed
 * from b0: the blocks by recorded end, how many each absorbs and their latest recorded end.
 * Then the call-by-call target groups (groupSpans). Leaves the latest recorded end in
 * s.st.ret[0].
 */
function planSweep(b0: number, nb: number, c: PlanColumns, s: ParentScratch): void {
  const { bEnd, order, bGrp } = s;
  for (let i = 0; i < nb; i++) {
    let j = i;
    while (j > 0 && bEnd[order[j - 1]!]! > bEnd[i]!) {
      order[j] = order[j - 1]!;
      j--;
    }
    order[j] = i;
  }
  let ptr = 0;
  let recMax = -Infinity;
  // Written in place, room for the nb blocks made once (see GrowI32.ensure).
  const bStart = c.bStart.a;
  const bPtr = c.bPtr.ensure(nb);
  const bRecMax = c.bRecMax.ensure(nb);
  const bOrder = c.bOrder.ensure(nb);
  const o0 = c.bPtr.n;
  for (let i = 0; i < nb; i++) {
    const start = bStart[b0 + i]!;
    while (ptr < nb && bEnd[order[ptr]!]! <= start && order[ptr]! < i) {
      const j = order[ptr++]!;
      if (bEnd[j]! > recMax) recMax = bEnd[j]!;
    }
    bPtr[o0 + i] = ptr;
    bRecMax[o0 + i] = recMax;
  }
  let rec = -Infinity;
  for (let i = 0; i < nb; i++) {
    bOrder[o0 + i] = order[i]!;
    if (bEnd[i]! > rec) rec = bEnd[i]!;
  }
  c.bPtr.n = c.bRecMax.n = c.bOrder.n = o0 + nb;
  for (let i = 0; i < nb; i++) {
    const g = bGrp[i]!;
    if (g < 0) continue;
    c.cbcGroup.push(g);
    c.cbcBlock.push(i);
    for (let j = i + 1; j < nb; j++) {
      if (bGrp[j] !== g) continue;
      c.cbcBlock.push(j);
      bGrp[j] = -2; // counted
    }
    c.cbcB0.push(c.cbcBlock.n);
  }
  s.st.ret[0] = rec;
}

/**
 * Plans local parent p. A parent with a target call below it is kept in the plan (its index is
 * returned); one without (a pool below it may move its time by rounding, as in the reference,
 * so it is not simply its recorded time) is evaluated once here and dropped from the plan:
 * returns -1 and leaves its time in s.st.ret[0].
 */
export function planParent(
  t: RequestTrees,
  L: LocalRequest,
  p: number,
  dynamic: boolean,
  workers: number | undefined,
  c: PlanColumns,
  s: ParentScratch,
): number {
  const b0 = c.bKind.n;
  const cbc0 = c.cbcGroup.n;
  const nb = planBlocks(t, L, p, workers, c, s);
  return closeParent(b0, cbc0, nb, t.durationMs[L.a + p]!, dynamic, c, s);
}

/**
 * A parent's blocks [b0, b0 + nb) just written (ps.bEnd and ps.bGrp filled): the sweep's
 * recorded part, then the parent kept in the plan (its index returned) or, not dynamic,
 * evaluated once and its rows dropped (-1 returned, its time in s.st.ret[0]). Shared by
 * planParent and the shape templates (request/plan/shape-run.ts), so both write the same rows.
 */
export function closeParent(
  b0: number,
  cbc0: number,
  nb: number,
  dur: number,
  dynamic: boolean,
  c: PlanColumns,
  s: ParentScratch,
): number {
  planSweep(b0, nb, c, s);
  const rec = s.st.ret[0]!;
  if (dynamic) {
    c.pDur.push(dur);
    c.pRec.push(rec);
    c.pBlock0.push(c.bKind.n);
    c.pCbc0.push(c.cbcGroup.n);
    return c.pDur.n - 1;
  }
  if (s.fan.length === 0) s.fan = new Float64Array(1);
  const v = c.view();
  runParent(v, b0, b0 + nb, dur, rec, cbc0, cbc0, s.st, s.fan, 0, s.fan);
  for (const col of [c.bKind, c.bArg, c.bVal, c.bFan, c.bStart, c.bPtr, c.bRecMax, c.bOrder])
    col.n = b0;
  return -1;
}
