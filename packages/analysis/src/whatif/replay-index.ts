/* eslint-disable @typescript-eslint/no-non-null-assertion -- typed-array loops: every index is in
   bounds by construction (offsets, pools), and a `?? 0` would hide an indexing bug as a zero. */
import type { LeafCalls } from '../types';

/**
 * What every replay needs besides the calls: fan-outs in time order, the time windows that
 * replacement latencies are drawn from, and a pool of call indexes grouped by (window, host)
 * so that "a call to another host in the same window" is one O(1) draw.
 *
 * Windows are consecutive time ranges of fan-out starts, at least `drawWindowMs` long and
 * holding at least `minPoolCalls` calls (sparse traffic widens a window rather than leaving
 * it with a handful of samples); the last window absorbs a short remainder.
 */
export interface ReplayIndex {
  readonly calls: LeafCalls;
  /** Fan-out indexes sorted by fanoutStartMs (stable). */
  readonly order: Uint32Array;
  /** Window of each fan-out (indexed by fan-out, not by order position). */
  readonly fanoutWindow: Uint32Array;
  /** Window w's calls are pool[windowStart[w] .. windowStart[w + 1] - 1]. */
  readonly windowStart: Uint32Array;
  /** Call indexes ordered by window, then by host group inside the window. */
  readonly pool: Uint32Array;
  /** Group (a window's calls to one host) of each call. */
  readonly callGroup: Uint32Array;
  /** Group g's calls are pool[groupStart[g] .. groupStart[g + 1] - 1]. */
  readonly groupStart: Uint32Array;
  readonly windows: number;
  readonly drawWindowMs: number;
}

export interface ReplayIndexOptions {
  /** Minimum window length, ms. Default 1000. */
  drawWindowMs?: number;
  /** Minimum calls per window. Default 100. */
  minPoolCalls?: number;
}

/** Fan-out indexes in ascending start order; O(F) when already sorted, else O(F log F). */
export function fanoutsByTime(calls: LeafCalls): Uint32Array {
  const start = calls.fanoutStartMs;
  const n = start.length;
  const order = new Uint32Array(n);
  let sorted = true;
  for (let f = 0; f < n; f++) {
    order[f] = f;
    if (f > 0 && start[f]! < start[f - 1]!) sorted = false;
  }
  if (!sorted) order.sort((a, b) => start[a]! - start[b]! || a - b);
  return order;
}

/**
 * Builds the index in O(calls + fan-outs log fan-outs) time (two counting passes per window)
 * and 8 bytes per call. Empty input gives zero windows.
 */
export function buildReplayIndex(calls: LeafCalls, opts: ReplayIndexOptions = {}): ReplayIndex {
  const drawWindowMs = opts.drawWindowMs ?? 1000;
  const minPoolCalls = opts.minPoolCalls ?? 100;
  const order = fanoutsByTime(calls);
  const off = calls.fanoutOffsets;
  const fanouts = order.length;
  const fanoutWindow = new Uint32Array(fanouts);

  // Pass 1: cut windows along time order.
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
    inWindow += off[f + 1]! - off[f]!;
  }
  if (cuts.length > 1 && inWindow < minPoolCalls) cuts.pop(); // fold a thin tail into its neighbour
  const windows = fanouts > 0 ? cuts.length : 0;
  cuts.push(fanouts);

  // Pass 2: per window, count calls per host, lay out host groups, then place the calls.
  const callTotal = calls.durationMs.length;
  const pool = new Uint32Array(callTotal);
  const callGroup = new Uint32Array(callTotal);
  const windowStart = new Uint32Array(windows + 1);
  const groupStarts: number[] = [];
  const hostCount = new Uint32Array(calls.hosts.length + 1);
  const hostCursor = new Uint32Array(calls.hosts.length + 1);
  const hostGroup = new Uint32Array(calls.hosts.length + 1);
  const touched: number[] = [];
  let pos = 0;
  for (let w = 0; w < windows; w++) {
    windowStart[w] = pos;
    const pBegin = cuts[w]!;
    const pEnd = cuts[w + 1]!;
    for (let p = pBegin; p < pEnd; p++) {
      const f = order[p]!;
      fanoutWindow[f] = w;
      for (let i = off[f]!; i < off[f + 1]!; i++) {
        const h = calls.host[i]!;
        if (hostCount[h] === 0) touched.push(h);
        hostCount[h] = hostCount[h]! + 1;
      }
    }
    for (const h of touched) {
      hostGroup[h] = groupStarts.length;
      groupStarts.push(pos);
      hostCursor[h] = pos;
      pos += hostCount[h]!;
    }
    for (let p = pBegin; p < pEnd; p++) {
      const f = order[p]!;
      for (let i = off[f]!; i < off[f + 1]!; i++) {
        const h = calls.host[i]!;
        const at = hostCursor[h]!;
        pool[at] = i;
        hostCursor[h] = at + 1;
        callGroup[i] = hostGroup[h]!;
      }
    }
    for (const h of touched) hostCount[h] = 0;
    touched.length = 0;
  }
  windowStart[windows] = pos;
  groupStarts.push(pos);
  return {
    calls,
    order,
    fanoutWindow,
    windowStart,
    pool,
    callGroup,
    groupStart: Uint32Array.from(groupStarts),
    windows,
    drawWindowMs,
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

/**
 * Index of a call to a host other than call i's, in the window of call i's fan-out `w`,
 * chosen with uniform `u` in [0, 1). O(1). When that window holds only call i's host, falls
 * back to another host anywhere in the index (a few tries), then to the same host.
 */
export function drawOtherHost(
  ix: ReplayIndex,
  w: number,
  i: number,
  u: number,
  stats: DrawStats,
): number {
  stats.draws++;
  const g = ix.callGroup[i]!;
  const ws = ix.windowStart[w]!;
  const gs = ix.groupStart[g]!;
  const ge = ix.groupStart[g + 1]!;
  const own = ge - gs;
  const others = ix.windowStart[w + 1]! - ws - own;
  if (others > 0) {
    let p = ws + Math.floor(u * others);
    if (p >= gs) p += own;
    return ix.pool[p]!;
  }
  return drawFallback(ix, i, u, stats);
}

function drawFallback(ix: ReplayIndex, i: number, u: number, stats: DrawStats): number {
  const host = ix.calls.host;
  const n = ix.pool.length;
  // Deterministic probes derived from u (golden-ratio steps), so no extra randomness is used.
  let v = u;
  for (let t = 0; t < 16; t++) {
    const j = ix.pool[Math.floor(v * n)]!;
    if (host[j] !== host[i]) {
      stats.outsideWindow++;
      return j;
    }
    v = (v + 0.6180339887498949) % 1;
  }
  stats.sameHost++;
  const g = ix.callGroup[i]!;
  const gs = ix.groupStart[g]!;
  return ix.pool[gs + Math.floor(u * (ix.groupStart[g + 1]! - gs))]!;
}
