/**
 * The canary policy's replay: a few calls of each fan-out first, the rest after them.
 */

import type { LeafCalls } from '../../types';
import type { SeededRandom } from '../../random';

/**
 * Canary requests: `canaries` calls of each fan-out, picked at random, go out first (at 0, with
 * their recorded latencies); the others go out when the last canary answered, keeping their
 * recorded send offsets and latencies. A fan-out with at most `canaries` calls is all canaries.
 * O(calls).
 */
export function replayCanary(
  calls: LeafCalls,
  canaries: number,
  rng: SeededRandom,
): { allLeavesMs: Float64Array } {
  const off = calls.fanoutOffsets;
  const fanouts = off.length - 1;
  const out = new Float64Array(Math.max(0, fanouts));
  for (let f = 0; f < fanouts; f++) {
    const a = off[f]!;
    const n = off[f + 1]! - a;
    if (n === 0) continue;
    const c = Math.min(canaries, n);
    // Pick c distinct calls: the first uniformly, the second uniformly among the others.
    const first = a + rng.below(n);
    let second = -1;
    if (c === 2) {
      second = a + rng.below(n - 1);
      if (second >= first) second++;
    }
    let canaryDone = calls.durationMs[first]!;
    if (second >= 0) canaryDone = Math.max(canaryDone, calls.durationMs[second]!);
    let max = canaryDone;
    for (let i = a; i < a + n; i++) {
      if (i === first || i === second) continue;
      const t = canaryDone + calls.startMs[i]! + calls.durationMs[i]!;
      if (t > max) max = t;
    }
    out[f] = max;
  }
  return { allLeavesMs: out };
}
