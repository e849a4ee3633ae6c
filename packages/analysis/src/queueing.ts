import type { Verdict } from './amplification';
import type { LeafCalls } from './types';

/**
 * The `queueing` verdict of a pool fan-out operation (issue #12): waiting for a worker, not
 * slow calls, makes its requests slow, so more parallelism helps and hedging does not.
 *
 * A call's queue wait is its start minus the fan-out's first call start (LeafCalls `startMs`:
 * the parent dispatched every call then). The straggler of a fan-out is the first call (in
 * LeafCalls order: start, then duration) with the latest finishing time; it is **queued** when
 * its queue wait is longer than its own duration. The verdict is `queueing` when the operation's
 * structure is `pool` and more than half of its tail fan-outs (all-leaves time above the
 * amplification threshold t) have a queued straggler; otherwise the amplification verdict.
 */

export type FanoutVerdict = Verdict | 'queueing';

/** Per fan-out: whether its straggler waited longer than it ran. O(calls). */
export function queuedStragglers(calls: LeafCalls): boolean[] {
  const out: boolean[] = [];
  for (let f = 0; f + 1 < calls.fanoutOffsets.length; f++) {
    const lo = calls.fanoutOffsets[f] as number;
    const hi = calls.fanoutOffsets[f + 1] as number;
    let best = lo;
    for (let i = lo; i < hi; i++) {
      const fin = (calls.startMs[i] as number) + (calls.durationMs[i] as number);
      if (fin > (calls.startMs[best] as number) + (calls.durationMs[best] as number)) best = i;
    }
    out.push(hi > lo && (calls.startMs[best] as number) > (calls.durationMs[best] as number));
  }
  return out;
}

/** Tail fan-outs (all-leaves time > thresholdMs) and how many of them had a queued straggler. */
export function queuedTail(
  queued: readonly boolean[],
  allLeavesMs: ArrayLike<number>,
  thresholdMs: number,
): { tail: number; queued: number } {
  let tail = 0;
  let q = 0;
  queued.forEach((isQueued, f) => {
    if (!((allLeavesMs[f] as number) > thresholdMs)) return;
    tail++;
    if (isQueued) q++;
  });
  return { tail, queued: q };
}

/** `queueing` for a pool whose tail fan-outs mostly had a queued straggler, else `verdict`. */
export function fanoutVerdict(
  verdict: Verdict,
  structure: 'parallel' | 'pool',
  tail: { tail: number; queued: number },
): FanoutVerdict {
  return structure === 'pool' && 2 * tail.queued > tail.tail ? 'queueing' : verdict;
}
