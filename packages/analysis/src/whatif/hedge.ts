/* eslint-disable @typescript-eslint/no-non-null-assertion -- typed-array loops: every index is in
   bounds by construction (offsets, pools), and a `?? 0` would hide an indexing bug as a zero. */
import { drawOtherHost, newDrawStats, type DrawStats, type ReplayIndex } from './replay-index';
import type { SeededRandom } from '../random';

export interface HedgeReplay {
  /**
   * What-if all-leaves time, ms: replay r of fan-out f at r x fan-outs + f (one replay: indexed
   * like the fan-outs).
   */
  allLeavesMs: Float64Array;
  /** Backup requests sent, averaged over the replays. */
  backups: number;
  draws: DrawStats;
}

/**
 * Hedged requests: a call still outstanding d ms after it was sent gets a backup to another
 * host; with maxAttempts > 2, another one every further d ms while none has answered. The
 * call's time becomes min(L, d + L', 2d + L'', ...), each L' the latency of a recorded call to
 * another host in the same time window (so slowness shared by a window stays shared). Backups
 * of fan-outs with `reported[f] === 0` (warm-up) are not counted. Sibling
 * calls are re-timed independently: N identical calls stay N branches.
 *
 * `replays` R: independent replays of the draws. Calls faster than d have no draw, so their
 * part of a fan-out's time is computed once and only the hedged calls (about 1 - p of them for
 * a delay at the p quantile) are redrawn R times: O(calls + R x hedged calls) time.
 */
export function replayHedge(
  ix: ReplayIndex,
  delayMs: number,
  maxAttempts: number,
  rng: SeededRandom,
  reported?: Uint8Array,
  replays = 1,
  /** Makes the output (shared memory, for threads). */
  alloc: (n: number) => Float64Array = (n) => new Float64Array(n),
): HedgeReplay {
  const { calls } = ix;
  const off = calls.fanoutOffsets;
  const start = calls.startMs;
  const dur = calls.durationMs;
  const fanouts = Math.max(0, off.length - 1);
  const R = Math.max(1, Math.floor(replays));
  const out = alloc(fanouts * R);
  const draws = newDrawStats();
  let backups = 0;
  let hedged: Uint32Array<ArrayBuffer> = new Uint32Array(64);
  const maxes = new Float64Array(R);
  for (let f = 0; f < fanouts; f++) {
    const t0 = calls.fanoutStartMs[f]!;
    const weight = reported ? reported[f]! : 1; // warm-up fan-outs are replayed, not counted
    let fixed = 0;
    let h = 0;
    const end = off[f + 1]!;
    for (let i = off[f]!; i < end; i++) {
      if (dur[i]! > delayMs) {
        if (h === hedged.length) hedged = grow(hedged);
        hedged[h++] = i;
      } else {
        const fin = start[i]! + dur[i]!;
        if (fin > fixed) fixed = fin;
      }
    }
    // Call by call, then replay by replay: a call's R draws share one window lookup.
    maxes.fill(fixed);
    for (let k = 0; k < h; k++) {
      const i = hedged[k]!;
      const sent = t0 + start[i]!;
      for (let r = 0; r < R; r++) {
        let best = dur[i]!;
        for (let a = 1; a < maxAttempts; a++) {
          const sentAt = a * delayMs;
          if (best <= sentAt) break;
          backups += weight;
          const j = drawOtherHost(ix, sent + sentAt, i, rng, draws);
          const t = sentAt + dur[j]!;
          if (t < best) best = t;
        }
        const fin = start[i]! + best;
        if (fin > maxes[r]!) maxes[r] = fin;
      }
    }
    for (let r = 0; r < R; r++) out[r * fanouts + f] = maxes[r]!;
  }
  return { allLeavesMs: out, backups: backups / R, draws };
}

function grow(a: Uint32Array): Uint32Array<ArrayBuffer> {
  const b = new Uint32Array(a.length * 2);
  b.set(a);
  return b;
}
