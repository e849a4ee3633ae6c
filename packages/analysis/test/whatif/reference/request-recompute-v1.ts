// The first implementation of the whole-request replay (issue #14), kept unchanged as the
// reference that request-replay-equivalence.test.ts compares the columnar version with, output
// for output. Not used at run time.
import { STRUCTURE_CODE } from '../../../src/whatif/request/trees/trees';
import type { PreparedRequests } from './request-replay-v1';

/** One replay's re-timed requests: root time per request and span per target group, ms. */
export interface RecomputeOut {
  requestMs: Float64Array;
  fanoutMs: Float64Array;
}

/** Scratch arrays sized to the widest parent, reused across nodes and replays. */
export class RecomputeScratch {
  readonly newDur: Float64Array;
  readonly bStart: Float64Array;
  readonly bEnd: Float64Array;
  readonly bNewEnd: Float64Array;
  readonly byEnd: Uint32Array;
  readonly free: Float64Array;
  readonly recFree: Float64Array;
  readonly done: Int32Array;
  /** Per block: the target group of a lone target call (-1 otherwise), and its new span. */
  readonly bGroup: Int32Array;
  readonly bSpan: Float64Array;
  constructor(nodes: number, most: number) {
    this.bGroup = new Int32Array(most);
    this.bSpan = new Float64Array(most);
    this.newDur = new Float64Array(nodes);
    this.bStart = new Float64Array(most);
    this.bEnd = new Float64Array(most);
    this.bNewEnd = new Float64Array(most);
    this.byEnd = new Uint32Array(most);
    this.free = new Float64Array(most);
    this.recFree = new Float64Array(most);
    this.done = new Int32Array(nodes).fill(-1);
  }
}

/**
 * Replay r: `blockMs[r x blocks + b]` is the policy's time for target block b (see
 * prepareRequests). `poolWorkers`: k for every target group (the pool policy; Infinity:
 * unbounded), else undefined. Writes out.requestMs[req] and out.fanoutMs[group]. O(nodes +
 * pool calls x k).
 */
export function recomputeRequests(
  pr: PreparedRequests,
  blockMs: Float64Array,
  r: number,
  poolWorkers: number | undefined,
  s: RecomputeScratch,
  out: RecomputeOut,
): void {
  const t = pr.trees;
  const B = pr.blocks.fanoutOffsets.length - 1;
  const { newDur, done } = s;
  done.fill(-1);
  for (let k = 0; k < pr.post.length; k++) {
    const p = pr.post[k]!;
    const b = pr.blockOf[p]!;
    if (b >= 0 && pr.wholeGroup[p] === 0) {
      newDur[p] = blockMs[r * B + b]! - pr.blocks.startMs[pr.blocks.fanoutOffsets[b]!]!;
      continue;
    }
    newDur[p] = t.durationMs[p]! + shiftOfChildren(pr, p, blockMs, r * B, poolWorkers, s, out);
  }
  for (let q = 0; q + 1 < t.nodeOffsets.length; q++) out.requestMs[q] = newDur[t.nodeOffsets[q]!]!;
}

/**
 * How far p's end moves: forms p's children into blocks, re-times them in recorded start order
 * (each keeps its gap to the latest block that ended before it started) and returns the move
 * of the latest block end.
 */
function shiftOfChildren(
  pr: PreparedRequests,
  p: number,
  blockMs: Float64Array,
  base: number,
  poolWorkers: number | undefined,
  s: RecomputeScratch,
  out: RecomputeOut,
): number {
  const t = pr.trees;
  const a = pr.childStart[p]!;
  const z = pr.childStart[p + 1]!;
  if (a === z) return 0;
  let nb = 0;
  for (let k = a; k < z; k++) {
    const c = pr.childList[k]!;
    if (s.done[c] === p) continue; // already in its group's block
    const target = pr.groupOf[c]! >= 0;
    const grouped =
      pr.wholeGroup[c] === 1 ||
      t.structure[c] === STRUCTURE_CODE.pool ||
      (target && poolWorkers !== undefined && t.structure[c] !== STRUCTURE_CODE.single);
    s.bStart[nb] = t.startMs[c]!;
    if (!grouped) {
      s.bEnd[nb] = t.startMs[c]! + t.durationMs[c]!;
      s.bNewEnd[nb] = s.newDur[c]!; // the span; sweep() turns it into the new end
      s.bSpan[nb] = s.newDur[c]!;
      s.bGroup[nb] = target ? pr.groupOf[c]! : -1;
      nb++;
      continue;
    }
    s.bGroup[nb] = -1;
    const e = t.edge[c]!;
    let end = -Infinity;
    for (let q = k; q < z; q++) {
      const d = pr.childList[q]!;
      if (t.edge[d] !== e) continue;
      s.done[d] = p;
      end = Math.max(end, t.startMs[d]! + t.durationMs[d]!);
    }
    s.bEnd[nb] = end;
    let span: number;
    if (pr.wholeGroup[c] === 1) {
      span = blockMs[base + pr.blockOf[c]!]!;
    } else {
      const k0 = target && poolWorkers !== undefined ? poolWorkers : t.concurrency[c]!;
      span = poolSpan(pr, k, z, e, k0, s);
    }
    if (target) out.fanoutMs[pr.groupOf[c]!] = span;
    s.bNewEnd[nb] = span;
    nb++;
  }
  const move = sweep(nb, s);
  groupSpans(nb, s, out.fanoutMs);
  return move;
}

/** Span of each target group replayed call by call (sequential, single): first new start to last new end. */
function groupSpans(nb: number, s: RecomputeScratch, fanoutMs: Float64Array): void {
  for (let i = 0; i < nb; i++) {
    const g = s.bGroup[i]!;
    if (g < 0 || s.bGroup[i] === -2) continue;
    let lo = s.bNewEnd[i]! - s.bSpan[i]!;
    let hi = s.bNewEnd[i]!;
    for (let j = i + 1; j < nb; j++) {
      if (s.bGroup[j] !== g) continue;
      lo = Math.min(lo, s.bNewEnd[j]! - s.bSpan[j]!);
      hi = Math.max(hi, s.bNewEnd[j]!);
      s.bGroup[j] = -2; // counted
    }
    fanoutMs[g] = hi - lo;
  }
}

/**
 * Blocks in start order: each starts at its recorded start plus the move of the latest end
 * among the blocks that ended (as recorded) before it started. bNewEnd holds each block's new
 * span on entry and its new end on exit. Returns the move of the latest end. O(b log b).
 */
function sweep(nb: number, s: RecomputeScratch): number {
  const { bStart, bEnd, bNewEnd, byEnd } = s;
  // Insertion sort by recorded end: blocks are few and nearly in order, and no allocation.
  for (let i = 0; i < nb; i++) {
    let j = i;
    while (j > 0 && bEnd[byEnd[j - 1]!]! > bEnd[i]!) {
      byEnd[j] = byEnd[j - 1]!;
      j--;
    }
    byEnd[j] = i;
  }
  const order = byEnd;
  let ptr = 0;
  let recMax = -Infinity;
  let newMax = -Infinity;
  for (let i = 0; i < nb; i++) {
    while (ptr < nb && bEnd[order[ptr]!]! <= bStart[i]! && order[ptr]! < i) {
      const j = order[ptr++]!;
      if (bEnd[j]! > recMax) recMax = bEnd[j]!;
      if (bNewEnd[j]! > newMax) newMax = bNewEnd[j]!;
    }
    const shift = recMax === -Infinity ? 0 : newMax - recMax;
    bNewEnd[i] = bStart[i]! + shift + bNewEnd[i]!;
  }
  let rec = -Infinity;
  let now = -Infinity;
  for (let i = 0; i < nb; i++) {
    if (bEnd[i]! > rec) rec = bEnd[i]!;
    if (bNewEnd[i]! > now) now = bNewEnd[i]!;
  }
  return now - rec;
}

/**
 * List scheduling of one group's calls (children k..z of the parent on edge e, recorded start
 * order) on `workers` workers: each call takes the worker that frees first and keeps its
 * recorded delay after the worker it had freed up (recorded schedule on the recorded
 * concurrency). Returns the span from the group's first start. O(calls x workers).
 */
function poolSpan(
  pr: PreparedRequests,
  k: number,
  z: number,
  e: number,
  workers: number,
  s: RecomputeScratch,
): number {
  const t = pr.trees;
  const first = t.startMs[pr.childList[k]!]!;
  let n = 0;
  for (let q = k; q < z; q++) if (t.edge[pr.childList[q]!] === e) n++;
  const kr = Math.max(1, Math.min(n, t.concurrency[pr.childList[k]!]!));
  const kn = Math.max(1, Math.min(n, workers));
  const { free, recFree } = s;
  recFree.fill(0, 0, kr);
  free.fill(0, 0, kn);
  let end = 0;
  for (let q = k; q < z; q++) {
    const c = pr.childList[q]!;
    if (t.edge[c] !== e) continue;
    const rs = t.startMs[c]! - first;
    const wr = argmin(recFree, kr);
    const delay = rs - recFree[wr]!;
    recFree[wr] = rs + t.durationMs[c]!;
    const w = argmin(free, kn);
    const ns = Math.max(0, free[w]! + delay);
    free[w] = ns + s.newDur[c]!;
    if (free[w] > end) end = free[w]!;
  }
  return end;
}

function argmin(a: Float64Array, n: number): number {
  let best = 0;
  for (let i = 1; i < n; i++) if (a[i]! < a[best]!) best = i;
  return best;
}
