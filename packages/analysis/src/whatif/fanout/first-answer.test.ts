import { describe, expect, it } from 'vitest';
import { firstAnswerAllLeavesMs } from './first-answer';
import { leafCallsFromRows } from './synthetic';

describe('firstAnswerAllLeavesMs', () => {
  it('answers each shard with its first copy, the fan-out with its slowest shard', () => {
    // Shard a: primary 30 ms, backup sent at 10 ms taking 5 ms (answers at 15). Shard b: 12 ms.
    // A shadow call of 100 ms is ignored.
    const calls = leafCallsFromRows(
      [0],
      [
        [
          { durationMs: 30, host: 0 },
          { startMs: 10, durationMs: 5, host: 1 },
          { durationMs: 12, host: 2 },
          { durationMs: 100, host: 3 },
        ],
      ],
      4,
    );
    calls.attributes = {
      'tailscope.shard': { values: ['a', 'b'], index: Uint32Array.of(0, 0, 1, 1) },
      'tailscope.shadow': { values: ['(absent)', 'true'], index: Uint32Array.of(0, 0, 0, 1) },
    };
    const r = firstAnswerAllLeavesMs(calls, 'tailscope.shard', {
      key: 'tailscope.shadow',
      value: 'true',
    });
    expect(Array.from(r.allLeavesMs)).toEqual([15]);
    expect(r).toMatchObject({ calls: 3, duplicates: 1, ignored: 1 });
    // Without ignoring shadows, shard b's first answer is still 12 ms.
    expect(Array.from(firstAnswerAllLeavesMs(calls, 'tailscope.shard').allLeavesMs)).toEqual([15]);
    expect(() => firstAnswerAllLeavesMs(calls, 'zone')).toThrow(/zone/);
  });
});
