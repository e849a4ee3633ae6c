/* eslint-disable @typescript-eslint/no-non-null-assertion -- typed-array loops: every index is in
   bounds by construction (offsets, windows), and a `?? 0` would hide an indexing bug as a zero. */
import type { LeafCalls } from '../types';
import type { SeededRandom } from './random';

/**
 * What every replay needs besides the calls: fan-outs in time order and the time windows that
 * replacement latencies are drawn from. Windows are consecutive time ranges of fan-out starts,
 * at least `drawWindowMs` long and holding at least `minPoolCalls` calls (sparse traffic widens
 * a window rather than leaving it with a handful of samples); the last window absorbs a short
 * remainder. O(fan-outs) memory: draws sample the window's calls by position, so no per-call
 * index is built.
 */
export interface ReplayIndex {
  readonly calls: LeafCalls;
  /** Fan-out indexes sorted by fanoutStartMs (stable). */
  readonly order: Uint32Array;
  /** Window of each fan-out (indexed by fan-out, not by order position). */
  readonly fanoutWindow: Uint32Array;
  /** Window w holds the fan-outs order[windowStart[w] .. windowStart[w + 1] - 1]. */
  readonly windowStart: Uint32Array;
  /** Calls of the fan-outs before order position p (length fan-outs + 1). */
  readonly callsBefore: Uint32Array;
  /** True when fan-outs are stored in time order: a window's calls are one index range. */
  readonly contiguous: boolean;
  readonly windows: number;
  readonly drawWindowMs: number;
  /** Memo per window: -2 not known yet, -1 several hosts, else the window's only host. */
  readonly soleHost: Int32Array;
}

export interface ReplayIndexOptions {
  /** Minimum window length, ms. Default 1000. */
  drawWindowMs?: number;
  /** Minimum calls per window. Default 100. */
  minPoolCalls?: number;
}

/** Fan-out indexes in ascending start order; O(F) when already sorted, else O(F log F). */
export function fanoutsByTime(calls: LeafCalls): { order: Uint32Array; sorted: boolean } {
  const start = calls.fanoutStartMs;
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

/** Builds the index: O(fan-outs) time when fan-outs are in time order, else O(F log F). */
export function buildReplayIndex(calls: LeafCalls, opts: ReplayIndexOptions = {}): ReplayIndex {
  const drawWindowMs = opts.drawWindowMs ?? 1000;
  const minPoolCalls = opts.minPoolCalls ?? 100;
  const { order, sorted } = fanoutsByTime(calls);
  const off = calls.fanoutOffsets;
  const fanouts = order.length;
  const callsBefore = new Uint32Array(fanouts + 1);
  const cuts: number[] = [0]; // order positions where windows begin
  let windowBegin = fanouts > 0 ? calls.fanoutStartMs[order[0]!]! : 0;
  let inWindow = 0;
  for (let p = 0; p < fanouts; p++) {
    const f = order[p]!;
    const t = calls.fanoutStartMs[f]!;
    if (inWindow >= minPoolCalls && t - windowBegin >= drawWindowMs) {
      cuts.push(p);
      windowBegin = t;
      inWindow = 0;
    }
    const width = off[f + 1]! - off[f]!;
    inWindow += width;
    callsBefore[p + 1] = callsBefore[p]! + width;
  }
  if (cuts.length > 1 && inWindow < minPoolCalls) cuts.pop(); // fold a thin tail into its neighbour
  const windows = fanouts > 0 ? cuts.length : 0;
  cuts.length = windows;
  cuts.push(fanouts);
  const windowStart = Uint32Array.from(cuts);
  const fanoutWindow = new Uint32Array(fanouts);
  for (let w = 0; w < windows; w++)
    for (let p = windowStart[w]!; p < windowStart[w + 1]!; p++) fanoutWindow[order[p]!] = w;
  return {
    calls,
    order,
    fanoutWindow,
    windowStart,
    callsBefore,
    contiguous: sorted && (fanouts === 0 || off[0] === 0),
    windows,
    drawWindowMs,
    soleHost: new Int32Array(windows).fill(-2),
  };
}

/** Counts draws that could not stay inside the same window (reported in notes). */
export interface DrawStats {
  draws: number;
  outsideWindow: number;
  sameHost: number;
}

export function newDrawStats(): DrawStats {
  return { draws: 0, outsideWindow: 0, sameHost: 0 };
}

/** The r-th call (0-based) of window w in time order. O(1) when contiguous, else O(log F). */
export function windowCall(ix: ReplayIndex, w: number, r: number): number {
  const g = ix.callsBefore[ix.windowStart[w]!]! + r;
  if (ix.contiguous) return g;
  let lo = ix.windowStart[w]!;
  let hi = ix.windowStart[w + 1]!; // last position p with callsBefore[p] <= g
  while (hi - lo > 1) {
    const m = (lo + hi) >>> 1;
    if (ix.callsBefore[m]! <= g) lo = m;
    else hi = m;
  }
  return ix.calls.fanoutOffsets[ix.order[lo]!]! + (g - ix.callsBefore[lo]!);
}

/** Calls in window w. */
export function windowSize(ix: ReplayIndex, w: number): number {
  return ix.callsBefore[ix.windowStart[w + 1]!]! - ix.callsBefore[ix.windowStart[w]!]!;
}

/**
 * A uniformly chosen call to a host other than call i's, in window w (the window of call i's
 * fan-out), and none for which `excluded(host)` holds, if given. Rejection sampling (32 tries),
 * then an exact scan of the window; when the window holds no such call, another host anywhere
 * (counted in stats.outsideWindow), then call i's own host (stats.sameHost). Returns -1 only
 * when `excluded` rules out every other call. Expected O(1) per draw when hosts are balanced.
 */
export function drawOtherHost(
  ix: ReplayIndex,
  w: number,
  i: number,
  rng: SeededRandom,
  stats: DrawStats,
  excluded?: Uint8Array,
): number {
  stats.draws++;
  const host = ix.calls.host;
  const own = host[i]!;
  const size = windowSize(ix, w);
  for (let t = 0; t < 32; t++) {
    const j = windowCall(ix, w, Math.floor(rng.float() * size));
    const h = host[j]!;
    if (h !== own && (excluded === undefined || excluded[h] === 0)) return j;
  }
  return drawByScan(ix, w, i, rng, stats, excluded);
}

function drawByScan(
  ix: ReplayIndex,
  w: number,
  i: number,
  rng: SeededRandom,
  stats: DrawStats,
  excluded?: Uint8Array,
): number {
  const host = ix.calls.host;
  const own = host[i]!;
  const ok = (j: number): boolean =>
    host[j] !== own && (excluded === undefined || excluded[host[j]!] === 0);
  const size = windowSize(ix, w);
  if (ix.soleHost[w] === -2) ix.soleHost[w] = soleHostOf(ix, w, size);
  let m = 0;
  if (ix.soleHost[w] !== own) for (let r = 0; r < size; r++) if (ok(windowCall(ix, w, r))) m++;
  if (m > 0) {
    let pick = Math.floor(rng.float() * m);
    for (let r = 0; r < size; r++) {
      const j = windowCall(ix, w, r);
      if (ok(j) && pick-- === 0) return j;
    }
  }
  const n = host.length;
  for (let t = 0; t < 64; t++) {
    const j = Math.floor(rng.float() * n);
    if (ok(j)) {
      stats.outsideWindow++;
      return j;
    }
  }
  if (excluded !== undefined) return -1;
  stats.sameHost++;
  return windowCall(ix, w, Math.floor(rng.float() * size));
}

function soleHostOf(ix: ReplayIndex, w: number, size: number): number {
  const first = ix.calls.host[windowCall(ix, w, 0)]!;
  for (let r = 1; r < size; r++) if (ix.calls.host[windowCall(ix, w, r)] !== first) return -1;
  return first;
}
