/**
 * The whole-request replay compiled: every request's recorded-only work done once, so each
 * replay only re-times the target edge's blocks.
 */

import type { LeafCalls } from '../../../types';
import type { RequestTrees } from '../trees';
import type { TargetOptions } from '../replay';
import { Arena, arenaBytes, type ArenaMemory } from '../arena';
import { countTargets } from './count';
import { ParentScratch, PlanColumns } from './columns';
import { PlanState, runParent, SRC_CONST, SRC_PARENT, type PlanArrays } from './run';
import { TargetBlocks } from './blocks';
import { ShapeBook } from './shape-book';
import { localArrays, planGeneral } from './general';
import { runShape } from './shape-run';
import { ShapeRun } from './shape-order';

/**
 * The whole-request replay compiled (issue #14's performance part). It computes what
 * prepareRequests + recomputeRequests compute (request/replay/replay.ts has the model), bit for bit
 * (request-replay-equivalence.test.ts), but only where a replay can change something:
 * - requests without a call on the target edge are left out (nobody reads them);
 * - in a request, only the parents with a target call below them are recomputed each replay
 *   (for the microservices preset's route: the root alone, not its driver and customer
 *   subtrees); a subtree without one keeps its recorded time, or, when a pool below it may move
 *   it by rounding as the reference's recompute does, its time evaluated once;
 * - every quantity that depends on the recording only (block starts and ends, the sweep's order
 *   by end, the pools' recorded dispatch delays, the spans of untouched pools) is computed once,
 *   in flat typed arrays; a replay adds the new spans.
 */
export interface RequestPlan extends PlanArrays {
  /** Planned parents, lone target calls (their time is the policy's: vLone). */
  parents: number;
  /** Lone target calls. */
  lones: number;
  /**
   * Per lone call, its block; empty in a durationsOnly plan, where lone call l is block l.
   */
  loneBlock: Int32Array;
  /**
   * Per lone call: its block's first call start (0), subtracted from the policy's time as
   * request-recompute.ts does: NaN where a mixed-structure group (not from real traces) put a
   * call in two blocks and the block's call lies past the LeafCalls columns, as there. Empty
   * in a durationsOnly plan, where every block is one call starting at 0.
   */
  loneSub: Float64Array;
  /** Requests with a call on the edge, in order, and where each one's new time comes from. */
  involved: Uint32Array;
  reqKind: Int32Array;
  reqArg: Int32Array;
  reqVal: Float64Array;
  /** The target calls as LeafCalls for the policy, numbered as prepareRequests numbers them. */
  blocks: LeafCalls;
  groups: number;
  groupRecordedMs: Float64Array;
  /** Whether some group holds more than one call (the pool policy needs one). */
  repeated: boolean;
  maxBlocks: number;
  maxPool: number;
  /**
   * More blocks or calls than target calls: a group of mixed structures (not from real traces,
   * which give a group one structure) placed a call twice, and the columns, sized by the target
   * calls as the first implementation sizes them, dropped the excess as it does. A split answer
   * (request/answer/parts.ts) cannot drop the same values part by part, so it answers in one plan.
   */
  overflow: boolean;
  /** Requests planned by their shape's program (request/plan/shape.ts), the rest the general way. */
  shaped: number;
}

export interface PlanOptions extends TargetOptions {
  /**
   * Defined for the pool policy (its target groups are list-scheduled on PlanState.workers,
   * set per replay; the value here is not used), undefined for other policies.
   */
  workers?: number;
  /**
   * The plan's LeafCalls carry only the calls' durations and the block offsets (hosts, modes
   * and starts empty), for the pool policy, which reads nothing else. Needs perCall.
   */
  durationsOnly?: boolean;
  /** Only requests [from, to) (a part of a split answer: request/answer/parts.ts); default all. */
  from?: number;
  to?: number;
  /**
   * Buffers reused from the previous plan (parts planned one after another): the plan's
   * columns are then views of them, valid until the next plan made with the same memory.
   */
  memory?: ArenaMemory;
  /**
   * Plan requests of a shape already met by the shape's program (request/plan/shape.ts; the
   * same rows). Default true; false plans every request the general way (tests compare them).
   */
  shapes?: boolean;
}

/** Builds the plan. O(nodes) for the scan, then O(nodes of the requests with the edge). */
export function buildRequestPlan(t: RequestTrees, o: PlanOptions): RequestPlan {
  const from = o.from ?? 0;
  const R = Math.min(o.to ?? Infinity, t.nodeOffsets.length - 1);
  const { has, targets, widest, nInv } = countTargets(t, o.target, from, R);
  const { nodeOffsets } = t;
  const L = localArrays(widest);
  const tb = new TargetBlocks(t, o, targets, o.durationsOnly === true, o.memory);
  const cols = new PlanColumns();
  const ps = new ParentScratch();
  const arena = new Arena(arenaBytes(4 * nInv) * 3 + arenaBytes(8 * nInv), o.memory, 2);
  const involved = arena.u32(nInv);
  const reqKind = arena.i32(nInv);
  const reqArg = arena.i32(nInv);
  const reqVal = arena.f64(nInv);
  let maxBlocks = 1;
  let maxPool = 1;
  let k = 0;
  // A part of a split answer (a few thousand requests) is sized from its first tenth.
  const reserveAt = Math.min(4096, Math.max(64, nInv >> 3));
  const book = o.shapes === false ? undefined : new ShapeBook();
  const sr = new ShapeRun(widest);
  let shaped = 0;
  for (let q = from; q < R; q++) {
    if (has[q - from] === 0) continue;
    const a = nodeOffsets[q]!;
    const m = nodeOffsets[q + 1]! - a;
    L.a = a;
    const shape = book?.match(t, q, a, m);
    if (shape && runShape(t, shape, q, a, tb, cols, ps, sr)) {
      shaped++;
      maxBlocks = Math.max(maxBlocks, shape.most);
      maxPool = Math.max(maxPool, shape.most);
    } else {
      const widestHere = planGeneral(t, L, m, q, o, tb, cols, ps, book, sr);
      maxBlocks = Math.max(maxBlocks, widestHere);
      maxPool = Math.max(maxPool, widestHere);
    }
    reqKind[k] = sr.kind;
    reqArg[k] = sr.arg;
    reqVal[k] = sr.val;
    involved[k] = q;
    k++;
    // Sized from the first requests, the columns grow once instead of doubling a dozen times
    // (each doubling copies them and counts as external memory for the collector).
    if (k === reserveAt && k < nInv) cols.reserve((1.1 * nInv) / k, [tb.loneBlock], o.memory);
  }
  const blocks = tb.leafCalls();
  const loneBlock = tb.loneBlock.done();
  // A loop: TypedArray.from with a map function is several times slower in V8.
  const loneSub = tb.loneSub.subarray(0, loneBlock.length);
  for (let l = 0; l < loneSub.length; l++)
    loneSub[l] = blocks.startMs[blocks.fanoutOffsets[loneBlock[l]!]!] ?? Number.NaN;
  return {
    ...cols.compact(),
    parents: cols.pDur.n,
    loneBlock,
    loneSub,
    lones: tb.durationsOnly ? tb.nb : loneBlock.length,
    involved,
    reqKind,
    reqArg,
    reqVal,
    blocks,
    groups: tb.ng,
    groupRecordedMs: tb.groupRec.subarray(0, tb.ng),
    repeated: tb.repeated,
    maxBlocks,
    maxPool,
    overflow: tb.nb > targets || tb.nc > targets,
    shaped,
  };
}

/**
 * One replay r: `blockMs[r x blocks + b]` is the policy's time for block b (for a part of a
 * split answer, `blockMs[r x blocks + blockBase + b]`, blocks counting every part's). Writes each
 * involved request's new time (requestMs[k] for plan.involved[k]) and each target group's
 * span (fanoutMs). O(planned blocks + pool calls x workers).
 */
export function runPlan(
  x: RequestPlan,
  blockMs: Float64Array,
  r: number,
  st: PlanState,
  requestMs: Float64Array,
  fanoutMs: Float64Array,
  blocks = x.blocks.fanoutOffsets.length - 1,
  blockBase = 0,
): void {
  const base = r * blocks + blockBase;
  // durationsOnly: every block is one lone call, numbered as its lone index (lone call l is block l)
  // and starting at 0, so the lone calls' times are the replay's block times as they stand: a
  // view, not a copy (10 million values at 1M requests of the microservices preset).
  if (x.loneSub.length === 0) st.vLone = blockMs.subarray(base, base + x.lones);
  else
    for (let l = 0; l < x.loneBlock.length; l++)
      st.vLone[l] = blockMs[base + x.loneBlock[l]!]! - x.loneSub[l]!;
  for (let P = 0; P < x.parents; P++) {
    runParent(
      x,
      x.pBlock0[P]!,
      x.pBlock0[P + 1]!,
      x.pDur[P]!,
      x.pRec[P]!,
      x.pCbc0[P]!,
      x.pCbc0[P + 1]!,
      st,
      blockMs,
      base,
      fanoutMs,
    );
    st.vParent[P] = st.ret[0]!;
  }
  for (let k = 0; k < x.involved.length; k++) {
    const kind = x.reqKind[k]!;
    requestMs[k] =
      kind === SRC_CONST
        ? x.reqVal[k]!
        : kind === SRC_PARENT
          ? st.vParent[x.reqArg[k]!]!
          : st.vLone[x.reqArg[k]!]!;
  }
}

/** Scratch for runPlan; `workers`: the pool policy's k (Infinity: unbounded). */
export function planState(x: RequestPlan, workers = Infinity): PlanState {
  const lone = x.loneSub.length === 0 ? 0 : x.loneBlock.length;
  const st = new PlanState(x.parents, lone, x.maxBlocks, x.maxPool);
  st.workers = workers;
  return st;
}
