/**
 * The good-enough policy's replay: a fan-out answers once enough of its calls did, or at a deadline.
 */

import type { LeafCalls } from '../../types';
import { selectKth } from '../../quantile';

export interface GoodEnoughReplay {
  allLeavesMs: Float64Array;
  /** Share of all leaf calls whose answers made it into the response. */
  callsAnswered: number;
  /** Share of requests answered with every leaf. */
  requestsComplete: number;
}

/**
 * "Good enough" responses: a request answers once ceil(fraction x N) of its N calls finished,
 * or at deadlineMs, whichever comes first; calls finishing later are given up. O(calls)
 * expected (one selection per fan-out). A fan-out with no calls answers at 0, complete.
 */
export function replayGoodEnough(
  calls: LeafCalls,
  p: { fraction: number; deadlineMs?: number },
  reported?: Uint8Array,
): GoodEnoughReplay {
  const off = calls.fanoutOffsets;
  const fanouts = off.length - 1;
  const out = new Float64Array(Math.max(0, fanouts));
  let widest = 0;
  for (let f = 0; f < fanouts; f++) widest = Math.max(widest, off[f + 1]! - off[f]!);
  const fin = new Float64Array(widest);
  const deadline = p.deadlineMs ?? Number.POSITIVE_INFINITY;
  let answered = 0;
  let complete = 0;
  let total = 0;
  let requests = 0;
  for (let f = 0; f < fanouts; f++) {
    const a = off[f]!;
    const n = off[f + 1]! - a;
    const weight = reported ? reported[f]! : 1; // warm-up fan-outs are replayed, not counted
    total += weight * n;
    requests += weight;
    if (n === 0) {
      complete += weight;
      continue;
    }
    let max = 0;
    for (let j = 0; j < n; j++) {
      const t = calls.startMs[a + j]! + calls.durationMs[a + j]!;
      fin[j] = t;
      if (t > max) max = t;
    }
    const need = Math.min(n, Math.max(1, Math.ceil(p.fraction * n - 1e-9)));
    const byFraction = need === n ? max : selectKth(fin.subarray(0, n), need);
    const at = Math.min(byFraction, deadline);
    let got = 0;
    for (let j = 0; j < n; j++) if (fin[j]! <= at) got++;
    answered += weight * got;
    if (got === n) complete += weight;
    out[f] = at;
  }
  return {
    allLeavesMs: out,
    callsAnswered: total > 0 ? answered / total : 1,
    requestsComplete: requests > 0 ? complete / requests : 1,
  };
}
