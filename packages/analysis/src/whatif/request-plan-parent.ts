/* eslint-disable @typescript-eslint/no-non-null-assertion -- typed-array loops: every index is in
   bounds by construction (local CSR lists, scratch sized to the request), and a `?? 0` would
   hide an indexing bug as a zero. */
import { STRUCTURE_CODE, type RequestTrees } from './request-trees';
import { GrowF64, GrowI32 } from './grow';
import { Arena, arenaBytes } from './arena';
import {
  PlanState,
  runParent,
  runPool,
  SRC_CONST,
  SRC_LONE,
  SRC_PARENT,
  SRC_POOL,
  SRC_WHOLE,
  type PlanArrays,
} from './request-plan-run';

/** The plan's columns while they are built (see PlanArrays). */
export class PlanColumns {
  readonly pDur = new GrowF64(1024);
  readonly pBlock0 = new GrowI32(1024);
  readonly pRec = new GrowF64(1024);
  readonly pCbc0 = new GrowI32(1024);
  readonly bKind = new GrowI32(4096);
  readonly bArg = new GrowI32(4096);
  readonly bVal = new GrowF64(4096);
  readonly bFan = new GrowI32(4096);
  readonly bStart = new GrowF64(4096);
  readonly bPtr = new GrowI32(4096);
  readonly bRecMax = new GrowF64(4096);
  readonly bOrder = new GrowI32(4096);
  readonly cbcGroup = new GrowI32(256);
  readonly cbcB0 = new GrowI32(256);
  readonly cbcBlock = new GrowI32(256);
  readonly poolKn = new GrowI32(256);
  readonly poolC0 = new GrowI32(256);
  readonly pcKind = new GrowI32(1024);
  readonly pcArg = new GrowI32(1024);
  readonly pcVal = new GrowF64(1024);
  readonly pcDelay = new GrowF64(1024);
  constructor() {
    this.pBlock0.push(0);
    this.pCbc0.push(0);
    this.cbcB0.push(0);
    this.poolC0.push(0);
  }
  /**
   * Room for `factor` times the rows so far in every column (and in `more`), all in one
   * buffer: one large allocation instead of a dozen doublings (each a full collection, see
   * arena.ts).
   */
  reserve(factor: number, more: (GrowF64 | GrowI32)[] = []): void {
    const cols = [...(Object.values(this) as (GrowF64 | GrowI32)[]), ...more];
    const cap = (c: GrowF64 | GrowI32): number => Math.ceil(Math.max(c.n, 1) * factor);
    let bytes = 0;
    for (const c of cols) bytes += arenaBytes(cap(c) * c.a.BYTES_PER_ELEMENT);
    const arena = new Arena(bytes);
    for (const c of cols) c.moveTo(arena, cap(c));
  }
  /** The columns as they stand (the buffers change as they grow: take a fresh view each time). */
  view(): PlanArrays {
    return {
      pDur: this.pDur.a,
      pBlock0: this.pBlock0.a,
      pRec: this.pRec.a,
      pCbc0: this.pCbc0.a,
      bKind: this.bKind.a,
      bArg: this.bArg.a,
      bVal: this.bVal.a,
      bFan: this.bFan.a,
      bStart: this.bStart.a,
      bPtr: this.bPtr.a,
      bRecMax: this.bRecMax.a,
      bOrder: this.bOrder.a,
      cbcGroup: this.cbcGroup.a,
      cbcB0: this.cbcB0.a,
      cbcBlock: this.cbcBlock.a,
      poolKn: this.poolKn.a,
      poolC0: this.poolC0.a,
      pcKind: this.pcKind.a,
      pcArg: this.pcArg.a,
      pcVal: this.pcVal.a,
      pcDelay: this.pcDelay.a,
    };
  }
}

/**
 * One request's nodes as local arrays (index i: node a + i), filled by request-plan.ts: the
 * children CSR in recorded start order and what the target edge made of each node.
 */
export interface LocalRequest {
  a: number;
  kStart: Int32Array;
  kList: Int32Array;
  /** Global block (LeafCalls fan-out) and group of a target call, else -1. */
  blockOf: Int32Array;
  groupOf: Int32Array;
  /** 1: the call is in a target parallel group replayed as one fan-out. */
  whole: Uint8Array;
  /** Lone target call: its lone index (value from the policy), else -1. */
  lone: Int32Array;
  /**
   * Planned parent: its index; STATIC: a parent evaluated once (its time in cval); else -1
   * (its recorded time).
   */
  slot: Int32Array;
  cval: Float64Array;
}

/** Per-parent scratch, sized to the widest parent seen. */
export class ParentScratch {
  used = new Uint8Array(64);
  bEnd = new Float64Array(64);
  bGrp = new Int32Array(64);
  order = new Int32Array(64);
  recFree = new Float64Array(64);
  st = new PlanState(0, 0, 64, 64);
  fan = new Float64Array(0);
  fit(n: number): void {
    if (n <= this.used.length) return;
    const m = 2 * n;
    this.used = new Uint8Array(m);
    this.bEnd = new Float64Array(m);
    this.bGrp = new Int32Array(m);
    this.order = new Int32Array(m);
    this.recFree = new Float64Array(m);
    this.st = new PlanState(0, 0, m, m);
  }
}

/** LocalRequest.slot of a parent evaluated once when planned. */
export const STATIC = -2;

function pushSource(
  t: RequestTrees,
  c: PlanColumns,
  L: LocalRequest,
  node: number,
  isBlock: boolean,
): void {
  const kind = isBlock ? c.bKind : c.pcKind;
  const arg = isBlock ? c.bArg : c.pcArg;
  const val = isBlock ? c.bVal : c.pcVal;
  if (L.lone[node]! >= 0) {
    kind.push(SRC_LONE);
    arg.push(L.lone[node]!);
    val.push(0);
  } else if (L.slot[node]! >= 0) {
    kind.push(SRC_PARENT);
    arg.push(L.slot[node]!);
    val.push(0);
  } else {
    kind.push(SRC_CONST);
    arg.push(0);
    val.push(L.slot[node] === STATIC ? L.cval[node]! : t.durationMs[L.a + node]!);
  }
}

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
    c.bStart.push(t.startMs[g]!);
    if (!grouped) {
      s.bEnd[nb] = t.startMs[g]! + t.durationMs[g]!;
      s.bGrp[nb] = target ? L.groupOf[ch]! : -1;
      pushSource(t, c, L, ch, true);
      c.bFan.push(-1);
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
    c.bFan.push(target ? L.groupOf[ch]! : -1);
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
  const pc0 = c.pcKind.n;
  let constant = true;
  for (let q = kFirst; q < k1; q++) {
    const d = kList[q]!;
    if (t.edge[a + d] !== e) continue;
    const rs = t.startMs[a + d]! - first;
    let wr = 0;
    for (let i = 1; i < kr; i++) if (recFree[i]! < recFree[wr]!) wr = i;
    c.pcDelay.push(rs - recFree[wr]!);
    recFree[wr] = rs + t.durationMs[a + d]!;
    pushSource(t, c, L, d, false);
    if (c.pcKind.a[c.pcKind.n - 1] !== SRC_CONST) constant = false;
  }
  if (constant && !target) {
    runPool(kn, pc0, c.pcKind.n, c.pcKind.a, c.pcArg.a, c.pcVal.a, c.pcDelay.a, s.st);
    c.pcKind.n = c.pcArg.n = c.pcVal.n = c.pcDelay.n = pc0;
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
  c.poolC0.push(c.pcKind.n);
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
  for (let i = 0; i < nb; i++) {
    const start = c.bStart.a[b0 + i]!;
    while (ptr < nb && bEnd[order[ptr]!]! <= start && order[ptr]! < i) {
      const j = order[ptr++]!;
      if (bEnd[j]! > recMax) recMax = bEnd[j]!;
    }
    c.bPtr.push(ptr);
    c.bRecMax.push(recMax);
  }
  let rec = -Infinity;
  for (let i = 0; i < nb; i++) {
    c.bOrder.push(order[i]!);
    if (bEnd[i]! > rec) rec = bEnd[i]!;
  }
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
  planSweep(b0, nb, c, s);
  const rec = s.st.ret[0]!;
  const dur = t.durationMs[L.a + p]!;
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
