/* eslint-disable @typescript-eslint/no-non-null-assertion -- typed-array loops: every index is in
   bounds by construction (offsets, positions), and a `?? 0` would hide an indexing bug as a zero. */
import type { LeafCalls } from '../types';
import type { SeededRandom } from '../random';

/**
 * What every replay that draws replacement latencies needs: fan-outs in time order, so "a call
 * to another host at about the same time" is a draw among the calls of the fan-outs that started
 * within ±drawWindowMs/2 of the moment the replacement was sent (widened, both ways, until it
 * holds `minPoolCalls` calls). A window centred on each draw keeps short shared stalls (a
 * machine pausing for 50 ms) in the replay; wide or fixed buckets dilute them. O(fan-outs)
 * memory: draws pick calls by position, no per-call index is built.
 */
export interface ReplayIndex {
  readonly calls: LeafCalls;
  /** Fan-out indexes sorted by fanoutStartMs (stable). */
  readonly order: Uint32Array;
  /** fanoutStartMs in that order, for binary search. */
  readonly startSorted: Float64Array;
  /** Calls of the fan-outs before order position p (length fan-outs + 1). */
  readonly callsBefore: Uint32Array;
  /** True when fan-outs are stored in time order: calls between two positions are one range. */
  readonly contiguous: boolean;
  readonly drawWindowMs: number;
  readonly minPoolCalls: number;
  /** Last neighbourhood looked up [t, lo, hi]: consecutive draws of a fan-out share it. */
  readonly memo: Float64Array;
}

/**
 * Defaults measured against the demo cluster (docs/whatif.md, ground truth): slowness that hits
 * a caller or a machine for tens of milliseconds hits a backup sent in that moment too; a
 * window of ±10 ms (at least 10 calls) keeps that, where ±500 ms made hedging look twice as good
 * at p99 as it really was. For independent slowness the width does not matter.
 */
const DEFAULT_DRAW_WINDOW_MS = 20;
const DEFAULT_MIN_POOL_CALLS = 10;

export interface ReplayIndexOptions {
  /** Width of the window centred on each draw, ms. Default 20. */
  drawWindowMs?: number;
  /** Minimum calls a window is widened to. Default 10. */
  minPoolCalls?: number;
}

/**
 * fanoutsByTime per fan-out start column: a slider replays the same calls (a whole-request
 * plan's blocks, the browser's data set) once per position, and the sort of 100,000 unsorted
 * fan-outs was ~15% of a position's time (issue #14). Kept with the column's length and sum,
 * checked on every use (O(F) adds, against O(F log F) compares), so a column rewritten in place
 * is sorted again rather than answered from the memo.
 */
const byTimeMemo = new WeakMap<
  Float64Array,
  { order: Uint32Array; sorted: boolean; sum: number }
>();

/** Fan-out indexes in ascending start order; O(F) when already sorted, else O(F log F). */
function fanoutsByTime(calls: LeafCalls): { order: Uint32Array; sorted: boolean } {
  const start = calls.fanoutStartMs;
  let sum = 0;
  for (const x of start) sum += x;
  const memo = byTimeMemo.get(start);
  if (memo?.order.length === start.length && Object.is(memo.sum, sum)) return memo;
  const fresh = { ...sortByTime(start), sum };
  byTimeMemo.set(start, fresh);
  return fresh;
}

function sortByTime(start: Float64Array): { order: Uint32Array; sorted: boolean } {
  const n = start.length;
  const order = new Uint32Array(n);
  let sorted = true;
  for (let f = 0; f < n; f++) {
    order[f] = f;
    if (f > 0 && start[f]! < start[f - 1]!) sorted = false;
  }
  if (!sorted) order.sort((a, b) => start[a]! - start[b]! || a - b);
  return { order, sorted };
}

/** Builds the index: O(fan-outs) when fan-outs are stored in time order, else O(F log F). */
export function buildReplayIndex(calls: LeafCalls, opts: ReplayIndexOptions = {}): ReplayIndex {
  const { order, sorted } = fanoutsByTime(calls);
  const off = calls.fanoutOffsets;
  const fanouts = order.length;
  const callsBefore = new Uint32Array(fanouts + 1);
  const startSorted = new Float64Array(fanouts);
  for (let p = 0; p < fanouts; p++) {
    const f = order[p]!;
    startSorted[p] = calls.fanoutStartMs[f]!;
    callsBefore[p + 1] = callsBefore[p]! + (off[f + 1]! - off[f]!);
  }
  return {
    calls,
    order,
    startSorted,
    callsBefore,
    contiguous: sorted && (fanouts === 0 || off[0] === 0),
    drawWindowMs: opts.drawWindowMs ?? DEFAULT_DRAW_WINDOW_MS,
    minPoolCalls: opts.minPoolCalls ?? DEFAULT_MIN_POOL_CALLS,
    memo: Float64Array.of(Number.NaN, 0, 0),
  };
}

/** First position whose value is >= t (`strict`: > t), or a.length. O(log n). */
function bound(a: Float64Array, t: number, strict: boolean): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (a[m]! < t || (strict && a[m] === t)) lo = m + 1;
    else hi = m;
  }
  return lo;
}

/**
 * The order positions [lo, hi) of the fan-outs that started within ±drawWindowMs/2 of t,
 * widened one fan-out at a time on both sides until they hold minPoolCalls calls (or all).
 * O(log F + widening); repeated lookups within 1 ms reuse the last answer.
 */
export function neighbourhood(ix: ReplayIndex, t: number): [number, number] {
  locate(ix, t);
  return [ix.memo[1]!, ix.memo[2]!];
}

/** neighbourhood() without allocating: the answer is left in ix.memo[1], ix.memo[2]. */
function locate(ix: ReplayIndex, t: number): void {
  const m = ix.memo;
  if (Math.abs(t - m[0]!) < 1) return;
  const half = ix.drawWindowMs / 2;
  let lo = bound(ix.startSorted, t - half, false);
  let hi = bound(ix.startSorted, t + half, true);
  const n = ix.startSorted.length;
  while (ix.callsBefore[hi]! - ix.callsBefore[lo]! < ix.minPoolCalls && (lo > 0 || hi < n)) {
    if (lo > 0) lo--;
    if (hi < n) hi++;
  }
  m[0] = t;
  m[1] = lo;
  m[2] = hi;
}

/** The call at global position g (callsBefore units) inside order positions [lo, hi). */
export function callAt(ix: ReplayIndex, lo: number, hi: number, g: number): number {
  if (ix.contiguous) return g;
  let a = lo;
  let b = hi; // last position p with callsBefore[p] <= g
  while (b - a > 1) {
    const mid = (a + b) >>> 1;
    if (ix.callsBefore[mid]! <= g) a = mid;
    else b = mid;
  }
  return ix.calls.fanoutOffsets[ix.order[a]!]! + (g - ix.callsBefore[a]!);
}

/** Counts draws that could not stay inside their window (reported in notes). */
export interface DrawStats {
  draws: number;
  outsideWindow: number;
  sameHost: number;
}

export function newDrawStats(): DrawStats {
  return { draws: 0, outsideWindow: 0, sameHost: 0 };
}

/**
 * A uniformly chosen call to a host other than call i's, among the calls of the fan-outs that
 * started around epoch ms `t` (see neighbourhood), and none for which `excluded[host]` is 1, if
 * given. Rejection sampling (32 tries), then an exact scan of the window; when the window holds
 * no such call, another host anywhere (counted in stats.outsideWindow), then call i's own host
 * (stats.sameHost). Returns -1 only when `excluded` rules out every other call. Expected
 * O(log F) per draw when hosts are balanced.
 */
export function drawOtherHost(
  ix: ReplayIndex,
  t: number,
  i: number,
  rng: SeededRandom,
  stats: DrawStats,
  excluded?: Uint8Array,
): number {
  stats.draws++;
  const host = ix.calls.host;
  const own = host[i]!;
  locate(ix, t);
  const lo = ix.memo[1]!;
  const hi = ix.memo[2]!;
  const g0 = ix.callsBefore[lo]!;
  const size = ix.callsBefore[hi]! - g0;
  for (let k = 0; k < 32; k++) {
    const j = callAt(ix, lo, hi, g0 + Math.floor(rng.float() * size));
    const h = host[j]!;
    if (h !== own && (excluded === undefined || excluded[h] === 0)) return j;
  }
  return drawByScan(ix, lo, hi, i, rng, stats, excluded);
}

function drawByScan(
  ix: ReplayIndex,
  lo: number,
  hi: number,
  i: number,
  rng: SeededRandom,
  stats: DrawStats,
  excluded?: Uint8Array,
): number {
  const host = ix.calls.host;
  const own = host[i]!;
  const ok = (j: number): boolean =>
    host[j] !== own && (excluded === undefined || excluded[host[j]!] === 0);
  const g0 = ix.callsBefore[lo]!;
  const g1 = ix.callsBefore[hi]!;
  let m = 0;
  for (let g = g0; g < g1; g++) if (ok(callAt(ix, lo, hi, g))) m++;
  if (m > 0) {
    let pick = Math.floor(rng.float() * m);
    for (let g = g0; g < g1; g++) {
      const j = callAt(ix, lo, hi, g);
      if (ok(j) && pick-- === 0) return j;
    }
  }
  const n = host.length;
  for (let k = 0; k < 64; k++) {
    const j = Math.floor(rng.float() * n);
    if (ok(j)) {
      stats.outsideWindow++;
      return j;
    }
  }
  if (excluded !== undefined) return -1;
  stats.sameHost++;
  return callAt(ix, lo, hi, g0 + Math.floor(rng.float() * (g1 - g0)));
}
