/**
 * Where a value (a child's new time, a pool call's new time, a request's new time) comes from
 * in a replay: a constant (the recorded time, or a subtree without target calls evaluated once
 * when planning), a planned parent's recomputed time, a lone target call's policy time, a
 * whole target group's policy time (blocks only), or a pool group's schedule (blocks only).
 */

export const SRC_CONST = 0;
export const SRC_PARENT = 1;
export const SRC_LONE = 2;
export const SRC_WHOLE = 3;
export const SRC_POOL = 4;

/**
 * The compiled replay: the parents whose time can change (request/plan/plan.ts), each as a list of
 * blocks with every recorded-only quantity of request-recompute.ts's sweep precomputed (block
 * starts, the order by recorded end, how many ended blocks each block absorbs, the recorded
 * latest end, the pools' recorded dispatch delays). A replay then only adds new spans.
 */
export interface PlanArrays {
  /** Per planned parent P: recorded duration; blocks [pBlock0[P], pBlock0[P + 1]). */
  pDur: Float64Array;
  pBlock0: Int32Array;
  /** Per planned parent: the latest recorded block end. */
  pRec: Float64Array;
  /** Per planned parent: its call-by-call target groups [pCbc0[P], pCbc0[P + 1]). */
  pCbc0: Int32Array;
  /** Per block: source kind (SRC_*) and argument; constant span (SRC_CONST). */
  bKind: Int32Array;
  bArg: Int32Array;
  bVal: Float64Array;
  /** Per block: fan-out group whose span it is (grouped target blocks), else -1. */
  bFan: Int32Array;
  bStart: Float64Array;
  /**
   * Per block (position i within its parent): blocks absorbed before it is placed (a prefix of
   * the parent's blocks by recorded end, bOrder), and the latest recorded end among them
   * (-Infinity: none, the block keeps its recorded start).
   */
  bPtr: Int32Array;
  bRecMax: Float64Array;
  bOrder: Int32Array;
  /** Per call-by-call group: fan-out group and its blocks (positions within the parent). */
  cbcGroup: Int32Array;
  cbcB0: Int32Array;
  cbcBlock: Int32Array;
  /**
   * Per pool group: workers, or -calls for the pool policy's target group (its workers are
   * PlanState.workers); calls [poolC0[x], poolC0[x + 1]) of pcDelay.
   */
  poolKn: Int32Array;
  poolC0: Int32Array;
  /**
   * Per pool group: where its calls' sources start in pcKind/pcArg/pcVal, or, when every call
   * takes the policy's time of consecutive lone calls (the pool policy's group), -1 - the
   * first lone index: those calls' sources are not written (160 bytes a request of the
   * microservices preset at 1M requests, written for nothing).
   */
  poolSrc: Int32Array;
  /** Per pool call: its recorded dispatch delay after its worker freed up. */
  pcDelay: Float64Array;
  /** Per pool call with written sources: source kind, argument, constant. */
  pcKind: Int32Array;
  pcArg: Int32Array;
  pcVal: Float64Array;
}

/** Per-replay values and scratch, reused across parents and replays. */
export class PlanState {
  readonly vParent: Float64Array;
  /** Per lone call, its policy time; in a durationsOnly plan a view of the replay's blockMs. */
  vLone: Float64Array;
  readonly span: Float64Array;
  readonly newEnd: Float64Array;
  readonly free: Float64Array;
  /** The pool policy's workers (Infinity: unbounded), for its target groups. */
  workers = Infinity;
  /** Result of runParent and runPool (a returned double could be boxed). */
  readonly ret = new Float64Array(1);
  constructor(parents: number, lone: number, maxBlocks: number, maxPool: number) {
    this.vParent = new Float64Array(parents);
    this.vLone = new Float64Array(lone);
    this.span = new Float64Array(Math.max(1, maxBlocks));
    this.newEnd = new Float64Array(Math.max(1, maxBlocks));
    this.free = new Float64Array(Math.max(1, maxPool));
  }
}

function valueOf(kind: number, arg: number, val: number, st: PlanState): number {
  return kind === SRC_CONST ? val : kind === SRC_PARENT ? st.vParent[arg]! : st.vLone[arg]!;
}

/**
 * One pool group (its calls [c0, c1) of pcDelay, sources from `src` as PlanArrays.poolSrc)
 * list-scheduled on kn workers,
 * as request-recompute.ts's poolSpan (the same operations in the same order, so the same
 * bits), with the recorded dispatch delays precomputed. Leaves the span from the group's first
 * start in st.ret[0].
 */
export function runPool(
  kn: number,
  c0: number,
  c1: number,
  src: number,
  x: Pick<PlanArrays, 'pcKind' | 'pcArg' | 'pcVal' | 'pcDelay'>,
  st: PlanState,
): void {
  const free = st.free;
  const { pcKind, pcArg, pcVal, pcDelay } = x;
  for (let i = 0; i < kn; i++) free[i] = 0;
  let end = 0;
  // src < 0: call m's time is the lone call -1 - src + (m - c0)'s; else its source is at src + (m - c0).
  const d = src < 0 ? -1 - src - c0 : src - c0;
  const vLone = st.vLone;
  if (kn >= c1 - c0) {
    // A worker per call: while every free time is >= 0, a worker still at 0 is the least, so
    // the search below would pick a free time of 0 for each call: the same operations on the
    // same values without it (the pool policy's 10 workers on 10 route calls). A negative or
    // NaN time (not from real traces) falls back to the search.
    let ok = true;
    for (let m = c0; m < c1 && ok; m++) {
      const ns = Math.max(0, 0 + pcDelay[m]!);
      const f =
        ns + (src < 0 ? vLone[d + m]! : valueOf(pcKind[d + m]!, pcArg[d + m]!, pcVal[d + m]!, st));
      if (f > end) end = f;
      ok = f >= 0;
    }
    if (ok) {
      st.ret[0] = end;
      return;
    }
    end = 0;
  }
  for (let m = c0; m < c1; m++) {
    let w = 0;
    for (let i = 1; i < kn; i++) if (free[i]! < free[w]!) w = i;
    const ns = Math.max(0, free[w]! + pcDelay[m]!);
    free[w] =
      ns + (src < 0 ? vLone[d + m]! : valueOf(pcKind[d + m]!, pcArg[d + m]!, pcVal[d + m]!, st));
    if (free[w]! > end) end = free[w]!;
  }
  st.ret[0] = end;
}

/**
 * runPool for a group whose calls all keep constant times (planned once: a pool with no target
 * call below it), from plain arrays: call j's recorded dispatch delay delay[j] and time val[j].
 * The same operations in the same order as runPool, so the same bits (request-plan-shape.test.ts
 * compares the plans), without writing the calls' rows only to read them back.
 */
export function runConstPool(
  kn: number,
  n: number,
  delay: Float64Array,
  val: Float64Array,
  free: Float64Array,
): number {
  for (let i = 0; i < kn; i++) free[i] = 0;
  let end = 0;
  if (kn >= n) {
    let ok = true;
    for (let m = 0; m < n && ok; m++) {
      const f = Math.max(0, 0 + delay[m]!) + val[m]!;
      if (f > end) end = f;
      ok = f >= 0;
    }
    if (ok) return end;
    end = 0;
  }
  for (let m = 0; m < n; m++) {
    let w = 0;
    for (let i = 1; i < kn; i++) if (free[i]! < free[w]!) w = i;
    const ns = Math.max(0, free[w]! + delay[m]!);
    free[w] = ns + val[m]!;
    if (free[w]! > end) end = free[w]!;
  }
  return end;
}

/**
 * A parent's new time from its blocks [b0, b1) (request-recompute.ts's shiftOfChildren, sweep
 * and groupSpans, same operations in the same order). Writes the fan-out spans of its target
 * groups; leaves the parent's new time in st.ret[0]. `base`: the replay's offset in blockMs.
 */
export function runParent(
  x: PlanArrays,
  b0: number,
  b1: number,
  durMs: number,
  recMs: number,
  cbc0: number,
  cbc1: number,
  st: PlanState,
  blockMs: Float64Array,
  base: number,
  fanoutMs: Float64Array,
): void {
  const { span, newEnd, vParent, vLone } = st;
  // Locals: the loops below read these columns for every block of a million requests.
  const { bKind, bArg, bVal, bFan, bPtr, bOrder, bRecMax, bStart } = x;
  for (let j = b0; j < b1; j++) {
    const kind = bKind[j]!;
    let sp: number;
    if (kind === SRC_CONST) sp = bVal[j]!;
    else if (kind === SRC_WHOLE) sp = blockMs[base + bArg[j]!]!;
    else if (kind === SRC_POOL) {
      const pool = bArg[j]!;
      const v = x.poolKn[pool]!;
      const kn = v >= 0 ? v : Math.max(1, Math.min(-v, st.workers));
      runPool(kn, x.poolC0[pool]!, x.poolC0[pool + 1]!, x.poolSrc[pool]!, x, st);
      sp = st.ret[0]!;
    } else sp = kind === SRC_PARENT ? vParent[bArg[j]!]! : vLone[bArg[j]!]!;
    const f = bFan[j]!;
    if (f >= 0) fanoutMs[f] = sp;
    span[j - b0] = sp;
  }
  let ptr = 0;
  let newMax = -Infinity;
  let now = -Infinity;
  for (let j = b0; j < b1; j++) {
    const lim = bPtr[j]!;
    while (ptr < lim) {
      const e = newEnd[bOrder[b0 + ptr++]!]!;
      if (e > newMax) newMax = e;
    }
    const rm = bRecMax[j]!;
    const shift = rm === -Infinity ? 0 : newMax - rm;
    const ne = bStart[j]! + shift + span[j - b0]!;
    newEnd[j - b0] = ne;
    if (ne > now) now = ne;
  }
  for (let g = cbc0; g < cbc1; g++) {
    const i0 = x.cbcBlock[x.cbcB0[g]!]!;
    let lo = newEnd[i0]! - span[i0]!;
    let hi = newEnd[i0]!;
    for (let k = x.cbcB0[g]! + 1; k < x.cbcB0[g + 1]!; k++) {
      const i = x.cbcBlock[k]!;
      lo = Math.min(lo, newEnd[i]! - span[i]!);
      hi = Math.max(hi, newEnd[i]!);
    }
    fanoutMs[x.cbcGroup[g]!] = hi - lo;
  }
  st.ret[0] = durMs + (now - recMs);
}
