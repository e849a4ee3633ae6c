/**
 * The tied-requests policy's replay: two copies queued, the first to start cancels the other.
 */

import { drawOtherHost, newDrawStats, type DrawStats, type ReplayIndex } from './replay-index';
import type { SeededRandom } from '../../random';

export interface TiedReplay {
  allLeavesMs: Float64Array;
  /** Second copies enqueued (calls still unanswered after the delay). */
  copies: number;
  /** Copies that won (started executing first). */
  copyWins: number;
  /** Calls executed twice: the loser started before the cancellation reached it. */
  duplicated: number;
  draws: DrawStats;
}

/**
 * Tied requests. Each call's latency L is split into queueing Q and execution L - Q: from
 * `queueMs` when the spans carried it, else Q = max(0, L - serviceMs) (the part above a typical
 * execution time is waiting). A call unanswered after delayMs gets a copy on another host,
 * whose Q', L' come from a recorded call to another host in the same window. The copy that
 * starts first (original at Q, copy at delay + Q') runs; the other is cancelled, unless it
 * started within cancelMs of the winner, in which case both ran (extra work). O(calls).
 */
export function replayTied(
  ix: ReplayIndex,
  p: { delayMs: number; cancelMs: number; serviceMs: number },
  rng: SeededRandom,
  reported?: Uint8Array,
): TiedReplay {
  const { calls } = ix;
  const off = calls.fanoutOffsets;
  const start = calls.startMs;
  const dur = calls.durationMs;
  const queue = calls.queueMs;
  const fanouts = off.length - 1;
  const out = new Float64Array(Math.max(0, fanouts));
  const draws = newDrawStats();
  let copies = 0;
  let copyWins = 0;
  let duplicated = 0;
  const queueOf = (i: number): number =>
    queue ? Math.min(queue[i]!, dur[i]!) : Math.max(0, dur[i]! - p.serviceMs);
  for (let f = 0; f < fanouts; f++) {
    const t0 = calls.fanoutStartMs[f]!;
    const weight = reported ? reported[f]! : 1; // warm-up fan-outs are replayed, not counted
    let max = 0;
    for (let i = off[f]!; i < off[f + 1]!; i++) {
      let t = dur[i]!;
      if (t > p.delayMs) {
        copies += weight;
        const j = drawOtherHost(ix, t0 + start[i]! + p.delayMs, i, rng, draws);
        const s1 = queueOf(i);
        const s2 = p.delayMs + queueOf(j);
        let loserStart = s2;
        let winnerStart = s1;
        if (s2 < s1) {
          t = p.delayMs + dur[j]!;
          copyWins += weight;
          loserStart = s1;
          winnerStart = s2;
        }
        if (loserStart < winnerStart + p.cancelMs) duplicated += weight;
      }
      const fin = start[i]! + t;
      if (fin > max) max = fin;
    }
    out[f] = max;
  }
  return { allLeavesMs: out, copies, copyWins, duplicated, draws };
}
