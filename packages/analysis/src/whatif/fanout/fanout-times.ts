/**
 * Recorded all-leaves finishing times per fan-out: the baseline of the one-fan-out replay.
 */

import type { LeafCalls } from '../../types';

/**
 * All-leaves finishing time of every fan-out as recorded: max over its calls of
 * startMs + durationMs, in ms from the fan-out's earliest call start. O(calls).
 * A fan-out with no calls gets 0.
 */
export function allLeavesMs(calls: LeafCalls): Float64Array {
  const off = calls.fanoutOffsets;
  const start = calls.startMs;
  const dur = calls.durationMs;
  const fanouts = off.length - 1;
  const out = new Float64Array(Math.max(0, fanouts));
  for (let f = 0; f < fanouts; f++) {
    let max = 0;
    for (let i = off[f]!; i < off[f + 1]!; i++) {
      const fin = start[i]! + dur[i]!;
      if (fin > max) max = fin;
    }
    out[f] = max;
  }
  return out;
}
