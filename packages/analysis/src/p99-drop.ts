import { randomFromSeed } from './hash';
import { quantileUnsorted } from './quantile';
import { quantileMaybeWeighted } from './weighted-quantile';
import type { AttributeColumn, LeafCalls } from './types';

/**
 * "How much the operation's p99 would drop if calls with v behaved like calls without v"
 * (DESIGN.md, Attribution), by re-drawing: every call with value v keeps its start offset and
 * gets the latency of a call drawn uniformly at random (seeded) from the calls without v; each
 * fan-out's all-leaves time is recomputed and the type-7 p99 across fan-outs is taken again.
 * Fan-outs with no call of value v keep their time.
 *
 * Draws come from a pool: every call when there are at most POOL_SIZE, else a seeded uniform
 * sample of POOL_SIZE calls (drawing from a uniform sample of the rest is drawing from the rest).
 * A compact pool keeps each draw a cache hit instead of a random read across the whole columns,
 * which was ~4 cache misses per re-drawn call at 5 million calls.
 */

/** Calls in a draw pool at most (2^18: 3 MB of latency and value, cache-resident). */
export const POOL_SIZE = 1 << 18;

/** Precomputed per-fan-out maxima shared by every value of every dimension. */
export interface DropContext {
  calls: LeafCalls;
  allLeavesMs: Float64Array;
  straggler: Uint32Array;
  /** Fan-out of every call. */
  fanoutOf: Uint32Array;
  baseP99: number;
  /** Indexes of the pooled calls (all calls, or a seeded uniform sample of POOL_SIZE). */
  pool: Uint32Array;
  /** durationMs of the pooled calls. */
  poolDurationMs: Float64Array;
  /** Per dimension column: the pooled calls' values and how many pooled calls have each. */
  poolValues: Map<AttributeColumn, { values: Uint32Array; counts: Uint32Array }>;
  /** Per dimension column and value: the fan-outs whose straggler has that value. */
  stragglerFanouts: Map<AttributeColumn, Uint32Array[]>;
  /**
   * Sampled data (docs/analysis.md "Sampling"): each fan-out's adjusted count, undefined when
   * unweighted. The p99s are then weighted quantiles, and a draw picks a pooled call with
   * probability proportional to its fan-out's weight (rejection against the largest weight).
   */
  weights?: Float64Array;
  /** The pooled calls' weights and the largest (weighted only). */
  poolWeights?: Float64Array;
  maxPoolWeight?: number;
}

/** O(calls). `seed` chooses the pool sample when there are more than POOL_SIZE calls. */
export function dropContext(
  calls: LeafCalls,
  allLeavesMs: Float64Array,
  straggler: Uint32Array,
  seed: string | number = 1,
  weights?: Float64Array,
): DropContext {
  const off = calls.fanoutOffsets;
  const total = calls.durationMs.length;
  const fanoutOf = new Uint32Array(total);
  for (let f = 0; f + 1 < off.length; f++) fanoutOf.fill(f, off[f], off[f + 1]);
  const pool = samplePool(total, randomFromSeed(`pool|${seed}`));
  const poolDurationMs = new Float64Array(pool.length);
  for (let k = 0; k < pool.length; k++)
    poolDurationMs[k] = calls.durationMs[pool[k] as number] as number;
  const ctx: DropContext = {
    calls,
    allLeavesMs,
    straggler,
    fanoutOf,
    baseP99: p99(allLeavesMs, weights),
    pool,
    poolDurationMs,
    poolValues: new Map(),
    stragglerFanouts: new Map(),
  };
  if (weights) {
    const poolWeights = Float64Array.from(pool, (i) => weights[fanoutOf[i] as number] as number);
    ctx.weights = weights;
    ctx.poolWeights = poolWeights;
    ctx.maxPoolWeight = poolWeights.reduce((m, w) => (w > m ? w : m), 0);
  }
  return ctx;
}

/** p99 across fan-outs: type 7, or weighted by the fan-outs' adjusted counts. */
function p99(allLeavesMs: Float64Array, weights: Float64Array | undefined): number {
  return weights
    ? quantileMaybeWeighted(allLeavesMs, weights, 0.99)
    : quantileUnsorted(allLeavesMs, 0.99);
}

/**
 * Ascending indexes 0..total-1, or a uniform sample of POOL_SIZE of them without replacement
 * (selection sampling, Knuth's Algorithm S: one sequential pass). O(total).
 */
function samplePool(total: number, random: () => number): Uint32Array {
  if (total <= POOL_SIZE) return Uint32Array.from({ length: total }, (_, i) => i);
  const out = new Uint32Array(POOL_SIZE);
  let need = POOL_SIZE;
  let n = 0;
  for (let i = 0; i < total && need > 0; i++) {
    if (random() * (total - i) < need) {
      out[n++] = i;
      need--;
    }
  }
  return out;
}

/**
 * p99 (all leaves, ms) minus the p99 with value `v` of `col` re-drawn from the other calls.
 * `callsWithValue`: indexes of the calls having v (ascending). Seeded by `seed` only, so the
 * answer for one value does not depend on which other values were asked. Null when every call
 * (of the pool) has v: there is no "rest" to behave like. O(F + calls with v + pool) at worst.
 */
export function p99Drop(
  ctx: DropContext,
  col: AttributeColumn,
  v: number,
  callsWithValue: Uint32Array,
  seed: string,
): number | null {
  const { calls, allLeavesMs, fanoutOf } = ctx;
  const total = calls.durationMs.length;
  if (callsWithValue.length === 0) return 0;
  if (callsWithValue.length >= total) return null;
  const draw = drawer(ctx, col, v, randomFromSeed(seed));
  if (!draw) return null;
  const next = allLeavesMs.slice();
  const off = calls.fanoutOffsets;
  // A fan-out whose straggler has v restarts from the latest call without v.
  for (const f of fanoutsByStragglerValue(ctx, col)[v] ?? []) {
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
    const t = (calls.startMs[i] as number) + draw();
    if (t > (next[f] as number)) next[f] = t;
  }
  return ctx.baseP99 - p99(next, ctx.weights);
}

/**
 * A function returning the latency (ms) of a uniformly drawn pooled call without value v:
 * rejection while v is at most a quarter of the pool, else a pool of its own (one pass). Null when
 * the pool has no call without v.
 */
function drawer(
  ctx: DropContext,
  col: AttributeColumn,
  v: number,
  random: () => number,
): (() => number) | null {
  const { poolDurationMs } = ctx;
  const { values, counts } = pooledValues(ctx, col);
  const n = values.length;
  const withValue = counts[v] ?? 0;
  if (withValue === n) return null;
  const pw = ctx.poolWeights;
  if (pw) {
    // Weighted: a pooled call without v, accepted with probability weight / largest weight.
    const max = ctx.maxPoolWeight ?? 1;
    return () => {
      for (;;) {
        const k = Math.floor(random() * n);
        if (values[k] !== v && random() * max < (pw[k] as number))
          return poolDurationMs[k] as number;
      }
    };
  }
  // Rejection reads two arrays per try; past a quarter of the pool a pool of its own is cheaper.
  if (withValue * 4 <= n) {
    return () => {
      for (;;) {
        const k = Math.floor(random() * n);
        if (values[k] !== v) return poolDurationMs[k] as number;
      }
    };
  }
  const own = new Float64Array(n - withValue);
  let m = 0;
  for (let k = 0; k < n; k++) if (values[k] !== v) own[m++] = poolDurationMs[k] as number;
  return () => own[Math.floor(random() * m)] as number;
}

/** Per value of a column, the fan-outs whose straggler has it; computed once per column. O(F). */
function fanoutsByStragglerValue(ctx: DropContext, col: AttributeColumn): Uint32Array[] {
  let e = ctx.stragglerFanouts.get(col);
  if (!e) {
    const value = ctx.straggler.map((i) => col.index[i] as number);
    const counts = new Uint32Array(col.values.length);
    for (const v of value) counts[v] = (counts[v] as number) + 1;
    const lists = Array.from(counts, (c) => new Uint32Array(c));
    const fill = new Uint32Array(counts.length);
    value.forEach((v, f) => {
      (lists[v] as Uint32Array)[fill[v] as number] = f;
      fill[v] = (fill[v] as number) + 1;
    });
    e = lists;
    ctx.stragglerFanouts.set(col, e);
  }
  return e;
}

/** The pooled calls' values of a column and their counts, computed once per column. O(pool). */
function pooledValues(
  ctx: DropContext,
  col: AttributeColumn,
): { values: Uint32Array; counts: Uint32Array } {
  let e = ctx.poolValues.get(col);
  if (!e) {
    const values = new Uint32Array(ctx.pool.length);
    const counts = new Uint32Array(col.values.length);
    for (let k = 0; k < values.length; k++) {
      const v = col.index[ctx.pool[k] as number] as number;
      values[k] = v;
      counts[v] = (counts[v] as number) + 1;
    }
    e = { values, counts };
    ctx.poolValues.set(col, e);
  }
  return e;
}
