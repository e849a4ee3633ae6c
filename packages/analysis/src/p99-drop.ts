import { randomFromSeed } from './hash';
import { quantileUnsorted } from './quantile';
import type { AttributeColumn, LeafCalls } from './types';

/**
 * "How much the operation's p99 would drop if calls with v behaved like calls without v"
 * (DESIGN.md, Attribution), by re-drawing: every call with value v keeps its start offset and
 * gets the latency of a call drawn uniformly at random (seeded) from the calls without v; each
 * fan-out's all-leaves time is recomputed and the type-7 p99 across fan-outs is taken again.
 * Fan-outs with no call of value v keep their time.
 */

/** Precomputed per-fan-out maxima shared by every value of every dimension. */
export interface DropContext {
  calls: LeafCalls;
  allLeavesMs: Float64Array;
  straggler: Uint32Array;
  /** Fan-out of every call. */
  fanoutOf: Uint32Array;
  baseP99: number;
}

/** O(calls). */
export function dropContext(
  calls: LeafCalls,
  allLeavesMs: Float64Array,
  straggler: Uint32Array,
): DropContext {
  const off = calls.fanoutOffsets;
  const fanoutOf = new Uint32Array(calls.durationMs.length);
  for (let f = 0; f + 1 < off.length; f++) fanoutOf.fill(f, off[f], off[f + 1]);
  return { calls, allLeavesMs, straggler, fanoutOf, baseP99: quantileUnsorted(allLeavesMs, 0.99) };
}

/**
 * p99 (all leaves, ms) minus the p99 with value `v` of `col` re-drawn from the other calls.
 * `callsWithValue`: indexes of the calls having v (ascending). Seeded by `seed` only, so the
 * answer for one value does not depend on which other values were asked. Null when every call
 * has v (there is no "rest" to behave like). O(F + calls with v) expected, plus a scan of the
 * fan-outs whose straggler has v.
 */
export function p99Drop(
  ctx: DropContext,
  col: AttributeColumn,
  v: number,
  callsWithValue: Uint32Array,
  seed: string,
): number | null {
  const { calls, allLeavesMs, straggler, fanoutOf } = ctx;
  const total = calls.durationMs.length;
  if (callsWithValue.length === 0) return 0;
  if (callsWithValue.length >= total) return null;
  const random = randomFromSeed(seed);
  const draw = drawer(col, v, callsWithValue.length, total, random);
  const next = allLeavesMs.slice();
  const off = calls.fanoutOffsets;
  // A fan-out whose straggler has v restarts from the latest call without v.
  for (let f = 0; f < straggler.length; f++) {
    if (col.index[straggler[f] as number] !== v) continue;
    let best = -Infinity;
    for (let j = off[f] as number; j < (off[f + 1] as number); j++) {
      if (col.index[j] === v) continue;
      const t = (calls.startMs[j] as number) + (calls.durationMs[j] as number);
      if (t > best) best = t;
    }
    next[f] = best;
  }
  for (let k = 0; k < callsWithValue.length; k++) {
    const i = callsWithValue[k] as number;
    const f = fanoutOf[i] as number;
    const t = (calls.startMs[i] as number) + (calls.durationMs[draw()] as number);
    if (t > (next[f] as number)) next[f] = t;
  }
  return ctx.baseP99 - quantileUnsorted(next, 0.99);
}

/**
 * A function returning the index of a uniformly drawn call without value v: rejection sampling
 * while v is a minority, an explicit pool of the other calls otherwise (bounded expected cost).
 */
function drawer(
  col: AttributeColumn,
  v: number,
  withValue: number,
  total: number,
  random: () => number,
): () => number {
  if (withValue * 2 <= total) {
    return () => {
      for (;;) {
        const j = Math.floor(random() * total);
        if (col.index[j] !== v) return j;
      }
    };
  }
  const pool = new Uint32Array(total - withValue);
  let n = 0;
  for (let j = 0; j < total; j++) if (col.index[j] !== v) pool[n++] = j;
  return () => pool[Math.floor(random() * n)] as number;
}
