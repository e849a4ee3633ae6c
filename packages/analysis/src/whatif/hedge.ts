/* eslint-disable @typescript-eslint/no-non-null-assertion -- typed-array loops: every index is in
   bounds by construction (offsets, pools), and a `?? 0` would hide an indexing bug as a zero. */
import { drawOtherHost, newDrawStats, type DrawStats, type ReplayIndex } from './replay-index';
import type { SeededRandom } from '../random';

export interface HedgeReplay {
  /** What-if all-leaves time per fan-out, ms (indexed like the fan-outs). */
  allLeavesMs: Float64Array;
  /** Backup requests sent. */
  backups: number;
  draws: DrawStats;
}

/**
 * Hedged requests: a call still outstanding d ms after it was sent gets a backup to another
 * host; with maxAttempts > 2, another one every further d ms while none has answered. The
 * call's time becomes min(L, d + L', 2d + L'', ...), each L' the latency of a recorded call to
 * another host in the same time window (so slowness shared by a window stays shared). Backups
 * of fan-outs with `reported[f] === 0` (warm-up) are not counted. Sibling
 * calls are re-timed independently: N identical calls stay N branches. O(calls) time.
 */
export function replayHedge(
  ix: ReplayIndex,
  delayMs: number,
  maxAttempts: number,
  rng: SeededRandom,
  reported?: Uint8Array,
): HedgeReplay {
  const { calls } = ix;
  const off = calls.fanoutOffsets;
  const start = calls.startMs;
  const dur = calls.durationMs;
  const fanouts = off.length - 1;
  const out = new Float64Array(Math.max(0, fanouts));
  const draws = newDrawStats();
  let backups = 0;
  for (let f = 0; f < fanouts; f++) {
    const t0 = calls.fanoutStartMs[f]!;
    const weight = reported ? reported[f]! : 1; // warm-up fan-outs are replayed, not counted
    let max = 0;
    const end = off[f + 1]!;
    for (let i = off[f]!; i < end; i++) {
      let best = dur[i]!;
      if (best > delayMs) {
        for (let a = 1; a < maxAttempts; a++) {
          const sentAt = a * delayMs;
          if (best <= sentAt) break;
          backups += weight;
          const j = drawOtherHost(ix, t0 + start[i]! + sentAt, i, rng, draws);
          const t = sentAt + dur[j]!;
          if (t < best) best = t;
        }
      }
      const fin = start[i]! + best;
      if (fin > max) max = fin;
    }
    out[f] = max;
  }
  return { allLeavesMs: out, backups, draws };
}
