/**
 * The index every drawing replay reads: fan-outs in time order and calls by host, so "a call to
 * another host at about the same time" is one draw.
 */
import type { LeafCalls } from '../../types';
import type { SeededRandom } from '../../random';
import { bound, timeBuckets, type TimeBuckets } from './time-buckets';
import { sortedOrder } from '../estimate';

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
  /** The call at each global position g (callsBefore units): what callAt returns, in O(1). */
  readonly callAtPos: Uint32Array;
  /** True when fan-outs are stored in time order: calls between two positions are one range. */
  readonly contiguous: boolean;
  /** Where a time's binary search starts and ends (timeBuckets). */
  readonly buckets: TimeBuckets;
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
 * What an index holds that depends on the calls only (not on the window's options): built by
 * buildStaticIndex, possibly on another thread (plain typed arrays), and handed to
 * buildReplayIndex.
 */
export interface StaticIndex {
  order: Uint32Array;
  sorted: boolean;
  startSorted: Float64Array;
  callsBefore: Uint32Array;
  callAtPos: Uint32Array;
  buckets: TimeBuckets;
}

/**
 * The static index per fan-out start column: a slider replays the same calls (a whole-request
 * plan's blocks, the browser's data set) once per position, and building it (the sort of
 * 100,000 unsorted fan-outs alone was ~15% of a position's time, issue #14; the per-call
 * positions 2-4 ms more) is then done once. Kept with the offsets column and the sums of both,
 * checked on every use (O(F) adds, against O(F log F) compares), so columns rewritten in place
 * are indexed again rather than answered from the memo.
 */
const staticMemo = new WeakMap<
  Float64Array,
  { index: StaticIndex; offsets: Uint32Array; startSum: number; offsetSum: number }
>();

// Two functions, not one over both types: each loop stays monomorphic.
function sumOf(a: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]!;
  return sum;
}

function sumOfUint(a: Uint32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]!;
  return sum;
}

function staticIndex(calls: LeafCalls): StaticIndex {
  const start = calls.fanoutStartMs;
  const off = calls.fanoutOffsets;
  const startSum = sumOf(start);
  const offsetSum = sumOfUint(off);
  const memo = staticMemo.get(start);
  if (
    memo?.index.order.length === start.length &&
    memo.offsets === off &&
    Object.is(memo.startSum, startSum) &&
    memo.offsetSum === offsetSum
  )
    return memo.index;
  const index = buildStaticIndex(calls);
  staticMemo.set(start, { index, offsets: off, startSum, offsetSum });
  return index;
}

/** Fan-outs in time order, ties by index (sortedOrder: a radix sort, O(F)). */
function sortByTime(start: Float64Array): { order: Uint32Array; sorted: boolean } {
  const n = start.length;
  let sorted = true;
  for (let f = 1; f < n && sorted; f++) if (start[f]! < start[f - 1]!) sorted = false;
  if (!sorted) return { order: sortedOrder(start), sorted };
  const order = new Uint32Array(n);
  for (let f = 0; f < n; f++) order[f] = f;
  return { order, sorted };
}

/**
 * The index's part that depends on the calls only, built afresh (no memo): O(calls). A caller
 * with threads builds it on one while others work (issue #14: ~50 ms of a million-request
 * hedge answer, beside the delay's quantile) and passes it to buildReplayIndex.
 */
export function buildStaticIndex(calls: LeafCalls): StaticIndex {
  const { order, sorted } = sortByTime(calls.fanoutStartMs);
  const off = calls.fanoutOffsets;
  const fanouts = order.length;
  const callsBefore = new Uint32Array(fanouts + 1);
  const startSorted = new Float64Array(fanouts);
  for (let p = 0; p < fanouts; p++) {
    const f = order[p]!;
    startSorted[p] = calls.fanoutStartMs[f]!;
    callsBefore[p + 1] = callsBefore[p]! + (off[f + 1]! - off[f]!);
  }
  const callAtPos = new Uint32Array(callsBefore[fanouts]!);
  for (let p = 0; p < fanouts; p++) {
    const a = off[order[p]!]!;
    const g0 = callsBefore[p]!;
    const g1 = callsBefore[p + 1]!;
    for (let g = g0; g < g1; g++) callAtPos[g] = a + (g - g0);
  }
  return { order, sorted, startSorted, callsBefore, callAtPos, buckets: timeBuckets(startSorted) };
}

/**
 * Builds the index: O(calls) the first time for these columns (see staticIndex), then O(F).
 * `built`: buildStaticIndex(calls) made elsewhere (then O(1)).
 */
export function buildReplayIndex(
  calls: LeafCalls,
  opts: ReplayIndexOptions = {},
  built?: StaticIndex,
): ReplayIndex {
  const off = calls.fanoutOffsets;
  const F = calls.fanoutStartMs.length;
  if (
    built &&
    (built.order.length !== F || built.callAtPos.length !== (off[F] ?? 0) - (off[0] ?? 0))
  )
    throw new Error('a static replay index built for other calls');
  const s = built ?? staticIndex(calls);
  return {
    calls,
    order: s.order,
    startSorted: s.startSorted,
    callsBefore: s.callsBefore,
    callAtPos: s.callAtPos,
    contiguous: s.sorted && (s.order.length === 0 || calls.fanoutOffsets[0] === 0),
    buckets: s.buckets,
    drawWindowMs: opts.drawWindowMs ?? DEFAULT_DRAW_WINDOW_MS,
    minPoolCalls: opts.minPoolCalls ?? DEFAULT_MIN_POOL_CALLS,
    memo: Float64Array.of(Number.NaN, 0, 0),
  };
}

/**
 * The order positions [lo, hi) of the fan-outs that started within ±drawWindowMs/2 of t,
 * widened one fan-out at a time on both sides until they hold minPoolCalls calls (or all).
 * O(1) expected (bound) + widening; repeated lookups within 1 ms reuse the last answer.
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
  let lo = bound(ix.startSorted, ix.buckets, t - half, false);
  let hi = bound(ix.startSorted, ix.buckets, t + half, true);
  const n = ix.startSorted.length;
  while (ix.callsBefore[hi]! - ix.callsBefore[lo]! < ix.minPoolCalls && (lo > 0 || hi < n)) {
    if (lo > 0) lo--;
    if (hi < n) hi++;
  }
  m[0] = t;
  m[1] = lo;
  m[2] = hi;
}

/**
 * The call at global position g (callsBefore units) inside order positions [lo, hi): the
 * position's call, looked up (callAtPos).
 */
export function callAt(ix: ReplayIndex, _lo: number, _hi: number, g: number): number {
  return ix.callAtPos[g]!;
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
  const at = ix.callAtPos;
  for (let k = 0; k < 32; k++) {
    const j = at[g0 + Math.floor(rng.float() * size)]!;
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
