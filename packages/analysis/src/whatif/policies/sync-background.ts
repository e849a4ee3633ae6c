/**
 * The synchronized-background policy's replay: background work moved to the same time on every host.
 */

import type { LeafCalls } from '../../types';
import type { SeededRandom } from '../../random';
import { alignBackgroundEpisodes, overlapsEpisode } from './background-episodes';

export interface SyncBackgroundReplay {
  allLeavesMs: Float64Array;
  episodes: number;
  hostsWithBackground: number;
  /** Calls that overlapped background activity and no longer do. */
  movedOut: number;
  /** Calls that did not overlap background activity and now do. */
  movedIn: number;
}

/**
 * Synchronized background activity. Episodes are aligned across hosts (see
 * alignBackgroundEpisodes); a call whose recorded interval no longer overlaps background on its
 * host takes the latency of a random recorded undisturbed call of the same host, and a call that
 * now overlaps takes the latency of a random recorded disturbed call of the same host (else of
 * the fleet). Calls whose status is unchanged keep their latency. O(calls log episodes).
 */
export function replaySyncBackground(
  calls: LeafCalls,
  mergeGapMs: number,
  rng: SeededRandom,
  reported?: Uint8Array,
): SyncBackgroundReplay {
  const ep = alignBackgroundEpisodes(calls, mergeGapMs);
  const pools = buildStatusPools(calls);
  const off = calls.fanoutOffsets;
  const fanouts = off.length - 1;
  const out = new Float64Array(Math.max(0, fanouts));
  let movedOut = 0;
  let movedIn = 0;
  for (let f = 0; f < fanouts; f++) {
    const weight = reported ? reported[f]! : 1; // warm-up fan-outs are replayed, not counted
    let max = 0;
    for (let i = off[f]!; i < off[f + 1]!; i++) {
      const h = calls.host[i]!;
      let t = calls.durationMs[i]!;
      const was = calls.background[i] !== 0 ? 1 : 0;
      const a = calls.fanoutStartMs[f]! + calls.startMs[i]!;
      const now = ep.episodes > 0 && overlapsEpisode(ep, h, a, a + t) ? 1 : 0;
      if (now !== was) {
        if (was === 1) movedOut += weight;
        else movedIn += weight;
        const j = pools.draw(h, now, rng.float());
        if (j >= 0) t = calls.durationMs[j]!;
      }
      const fin = calls.startMs[i]! + t;
      if (fin > max) max = fin;
    }
    out[f] = max;
  }
  return {
    allLeavesMs: out,
    episodes: ep.episodes,
    hostsWithBackground: ep.hostsWithBackground,
    movedOut,
    movedIn,
  };
}

/** Call indexes grouped by (host, disturbed?), with fleet-wide fallbacks. */
function buildStatusPools(calls: LeafCalls): {
  draw: (h: number, disturbed: number, u: number) => number;
} {
  const hosts = calls.hosts.length;
  const n = calls.durationMs.length;
  const start = new Uint32Array(2 * hosts + 1);
  const key = (i: number): number => 2 * calls.host[i]! + (calls.background[i] !== 0 ? 1 : 0);
  for (let i = 0; i < n; i++) start[key(i) + 1]!++;
  const fleet = [0, 0];
  for (let k = 0; k < 2 * hosts; k++) {
    fleet[k & 1]! += start[k + 1]!;
    start[k + 1]! += start[k]!;
  }
  const cursor = start.slice(0, 2 * hosts);
  const pool = new Uint32Array(n);
  for (let i = 0; i < n; i++) pool[cursor[key(i)]!++] = i;
  const draw = (h: number, disturbed: number, u: number): number => {
    const k = 2 * h + disturbed;
    const size = start[k + 1]! - start[k]!;
    if (size > 0) return pool[start[k]! + Math.floor(u * size)]!;
    const total = fleet[disturbed]!;
    if (total === 0) return -1;
    // The r-th call with this status across hosts, walking host groups (rare fallback).
    let r = Math.floor(u * total);
    for (let g = disturbed; g < 2 * hosts; g += 2) {
      const s = start[g + 1]! - start[g]!;
      if (r < s) return pool[start[g]! + r]!;
      r -= s;
    }
    return -1;
  };
  return { draw };
}
