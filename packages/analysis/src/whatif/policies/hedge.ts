/**
 * The hedge policy's replay: a backup call after a delay, drawn from another host at about the
 * same time; its draw-free scan, shared with the split answer.
 */

import { drawOtherHost, newDrawStats, type DrawStats, type ReplayIndex } from './replay-index';
import type { SeededRandom } from '../../random';
import type { LeafCalls } from '../../types';

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
 * The part of replayHedge that draws nothing, given the delay: per fan-out the latest finish of
 * its calls that answer by the delay (`fixed`, 0 when none), and its calls that get a backup
 * (`hedged[hedgedAt[f]] .. hedged[hedgedAt[f + 1] - 1]`, in call order). O(calls); a caller with
 * threads runs it while another thread builds the replay index (issue #14).
 */
export interface HedgeScan {
  delayMs: number;
  fixed: Float64Array;
  hedgedAt: Uint32Array;
  hedged: Uint32Array;
}

export function hedgeScan(calls: LeafCalls, delayMs: number): HedgeScan {
  const off = calls.fanoutOffsets;
  const start = calls.startMs;
  const dur = calls.durationMs;
  const fanouts = Math.max(0, off.length - 1);
  const fixed = new Float64Array(fanouts);
  const hedgedAt = new Uint32Array(fanouts + 1);
  let hedged: Uint32Array<ArrayBuffer> = new Uint32Array(64);
  let h = 0;
  for (let f = 0; f < fanouts; f++) {
    let latest = 0;
    const end = off[f + 1]!;
    for (let i = off[f]!; i < end; i++) {
      if (dur[i]! > delayMs) {
        if (h === hedged.length) hedged = grow(hedged);
        hedged[h++] = i;
      } else {
        const fin = start[i]! + dur[i]!;
        if (fin > latest) latest = fin;
      }
    }
    fixed[f] = latest;
    hedgedAt[f + 1] = h;
  }
  return { delayMs, fixed, hedgedAt, hedged: hedged.subarray(0, h) };
}

/**
 * Told as the replay goes which runs of fan-outs are final in its output (every replay's):
 * `part(k)` once fan-outs before ends[k] are (ends ascending), so a caller hands them on (to
 * threads replaying the requests around them) while later fan-outs still draw.
 */
export interface PartsDone {
  ends: Uint32Array;
  part: (k: number) => void;
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
 * part of a fan-out's time is computed once (hedgeScan; `scan`: made beforehand for these calls
 * and d) and only the hedged calls (about 1 - p of them for a delay at the p quantile) are
 * redrawn R times: O(calls + R x hedged calls) time.
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
  scan?: HedgeScan,
  done?: PartsDone,
): HedgeReplay {
  const { calls } = ix;
  const start = calls.startMs;
  const dur = calls.durationMs;
  const fanouts = Math.max(0, calls.fanoutOffsets.length - 1);
  if (scan && (!Object.is(scan.delayMs, delayMs) || scan.fixed.length !== fanouts))
    throw new Error('a hedge scan made for another delay or other calls');
  const { fixed, hedgedAt, hedged } = scan ?? hedgeScan(calls, delayMs);
  const R = Math.max(1, Math.floor(replays));
  const out = alloc(fanouts * R);
  const draws = newDrawStats();
  let backups = 0;
  const maxes = new Float64Array(R);
  const ends = done?.ends ?? new Uint32Array(0);
  let part = 0;
  for (let f = 0; f < fanouts; f++) {
    while (part < ends.length && ends[part]! <= f) done!.part(part++);
    const k0 = hedgedAt[f]!;
    const k1 = hedgedAt[f + 1]!;
    if (k0 === k1) {
      for (let r = 0; r < R; r++) out[r * fanouts + f] = fixed[f]!; // nothing to redraw
      continue;
    }
    const t0 = calls.fanoutStartMs[f]!;
    const weight = reported ? reported[f]! : 1; // warm-up fan-outs are replayed, not counted
    for (let r = 0; r < R; r++) maxes[r] = fixed[f]!;
    // Call by call, then replay by replay: a call's R draws share one window lookup.
    for (let k = k0; k < k1; k++) {
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
  while (part < ends.length) done!.part(part++);
  return { allLeavesMs: out, backups: backups / R, draws };
}

function grow(a: Uint32Array): Uint32Array<ArrayBuffer> {
  const b = new Uint32Array(a.length * 2);
  b.set(a);
  return b;
}
