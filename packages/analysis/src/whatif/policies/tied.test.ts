import { describe, expect, it } from 'vitest';
import { buildReplayIndex } from './replay-index';
import { replayTied } from './tied';
import { SeededRandom } from '../../random';
import { leafCallsFromRows } from '../fanout/synthetic';

// One fan-out per case: the case's call on host 0 plus a filler call on host 1 of 5 ms, so
// every copy lands on a 5 ms call with no queueing (serviceMs 5).
function run(primaryMs: number, queueMs?: number) {
  const calls = leafCallsFromRows(
    [0],
    [
      [
        { durationMs: primaryMs, host: 0 },
        { durationMs: 5, host: 1 },
      ],
    ],
    2,
  );
  if (queueMs !== undefined) calls.queueMs = Float64Array.of(queueMs, 0);
  const ix = buildReplayIndex(calls, { minPoolCalls: 1 });
  return replayTied(ix, { delayMs: 1, cancelMs: 0.5, serviceMs: 5 }, new SeededRandom(1));
}

describe('tied requests', () => {
  it('a copy that starts first wins, and the queued original is cancelled in time', () => {
    // Original: queue 15 + run 5. Copy: sent at 1, starts at 1, ends at 6.
    const r = run(20);
    expect(r.allLeavesMs[0]).toBe(6);
    expect(r.copyWins).toBe(1);
    expect(r.duplicated).toBe(0);
  });

  it('both start before the cancellation arrives: the work is done twice', () => {
    // Original: queue 1 (starts at 1), copy starts at 1: tie goes to the original, the copy
    // started within the 0.5 ms a cancellation needs.
    const r = run(6);
    expect(r.allLeavesMs[0]).toBe(6);
    expect(r.copyWins).toBe(0);
    expect(r.duplicated).toBe(1);
  });

  it('uses queueing time from the spans when present', () => {
    // 20 ms with no queueing: the original starts at 0 and runs; the copy is cancelled.
    const r = run(20, 0);
    expect(r.allLeavesMs[0]).toBe(20);
    expect(r.duplicated).toBe(0);
  });

  it('no copy when the call answers before the delay', () => {
    const r = run(0.5);
    expect(r.copies).toBe(1); // only the 5 ms filler enqueued a copy
  });
});
