/* eslint-disable @typescript-eslint/no-non-null-assertion -- typed-array loops: every index is in
   bounds by construction (offsets, pools), and a `?? 0` would hide an indexing bug as a zero. */
import type { ResolvedPolicy } from './policy';
import { drawOtherHost, newDrawStats, type DrawStats, type ReplayIndex } from './replay-index';
import type { SeededRandom } from './random';
import { HostWindowStats } from './host-window-stats';
import { ProbationState } from './probation-state';

export type ProbationParams = Extract<ResolvedPolicy, { kind: 'probation' }>;

export interface ProbationReplay {
  allLeavesMs: Float64Array;
  /** Seconds each host spent on probation (indexed like calls.hosts). */
  secondsByHost: Float64Array;
  /** Share of host-seconds removed: sum of probation seconds / (hosts seen x seconds covered). */
  capacityRemoved: number;
  /** Calls re-served by another host. */
  redirected: number;
  /** Shadow requests sent to hosts on probation (the extra load). */
  shadows: number;
  /** Calls to a probation host for which no healthy host was found in the window (kept as recorded). */
  unserved: number;
  coveredSeconds: number;
  draws: DrawStats;
}

/**
 * Latency-induced probation replayed in time order. Every intervalSeconds the hosts are judged
 * on the last windowSeconds of calls; a call to a host on probation is re-served by a recorded
 * call to a healthy host in the same draw window, and with probability shadowFraction also goes
 * to the probation host as a shadow request, whose recorded latency keeps its statistics going.
 * Assumptions: fan-outs are binned by start time (a call's latency counts in the interval it was
 * sent, not the one it finished in); healthy hosts keep their recorded latencies when they take
 * the extra traffic. O(calls + intervals x hosts x 384).
 */
export function replayProbation(
  ix: ReplayIndex,
  p: ProbationParams,
  rng: SeededRandom,
): ProbationReplay {
  const { calls, order, fanoutWindow } = ix;
  const off = calls.fanoutOffsets;
  const dur = calls.durationMs;
  const host = calls.host;
  const hosts = calls.hosts.length;
  const out = new Float64Array(order.length);
  const draws = newDrawStats();
  const intervalMs = p.intervalSeconds * 1000;
  const slots = Math.max(1, Math.round(p.windowSeconds / p.intervalSeconds));
  const stats = new HostWindowStats(hosts, dur.length);
  const state = new ProbationState(p, hosts, countHostsSeen(host, hosts));
  const t0 = order.length > 0 ? calls.fanoutStartMs[order[0]!]! : 0;
  let redirected = 0;
  let shadows = 0;
  let unserved = 0;
  let prevK = -1;
  let firstK = -1;
  let pos = 0;
  while (pos < order.length) {
    const k = Math.floor((calls.fanoutStartMs[order[pos]!]! - t0) / intervalMs);
    if (firstK < 0) firstK = k;
    // Intervals without traffic: judge again while the window still holds calls.
    for (let j = prevK + 1; prevK >= 0 && j < k && j - prevK <= slots; j++) {
      stats.expireThrough(j - slots);
      state.evaluate(stats, j);
    }
    for (; pos < order.length; pos++) {
      const f = order[pos]!;
      if (Math.floor((calls.fanoutStartMs[f]! - t0) / intervalMs) !== k) break;
      const w = fanoutWindow[f]!;
      let max = 0;
      for (let i = off[f]!; i < off[f + 1]!; i++) {
        const h = host[i]!;
        let t = dur[i]!;
        if (state.out[h] === 1) {
          const j = drawHealthy(ix, w, i, rng, state.out, draws);
          if (j >= 0) {
            t = dur[j]!;
            redirected++;
          } else unserved++;
          if (rng.float() < p.shadowFraction) {
            shadows++;
            stats.add(h, dur[i]!);
          }
        } else stats.add(h, t);
        const fin = calls.startMs[i]! + t;
        if (fin > max) max = fin;
      }
      out[f] = max;
    }
    stats.close(k);
    stats.expireThrough(k - slots);
    state.evaluate(stats, k);
    prevK = k;
  }
  const lastK = Math.max(prevK, 0);
  const secondsByHost = state.finish(lastK);
  const coveredSeconds = firstK < 0 ? 0 : (lastK - firstK + 1) * p.intervalSeconds;
  let total = 0;
  for (const s of secondsByHost) total += s;
  const capacityRemoved =
    coveredSeconds > 0 && state.hostsSeen > 0 ? total / (state.hostsSeen * coveredSeconds) : 0;
  return {
    allLeavesMs: out,
    secondsByHost,
    capacityRemoved,
    redirected,
    shadows,
    unserved,
    coveredSeconds,
    draws,
  };
}

/** A call to a host not on probation in the window, or -1 after 16 tries. */
function drawHealthy(
  ix: ReplayIndex,
  w: number,
  i: number,
  rng: SeededRandom,
  out: Uint8Array,
  draws: DrawStats,
): number {
  for (let t = 0; t < 16; t++) {
    const j = drawOtherHost(ix, w, i, rng.float(), draws);
    if (out[ix.calls.host[j]!] === 0) return j;
  }
  return -1;
}

function countHostsSeen(host: Uint32Array, hosts: number): number {
  const seen = new Uint8Array(hosts);
  let n = 0;
  for (const h of host) {
    if (seen[h] === 0) {
      seen[h] = 1;
      n++;
    }
  }
  return n;
}
