import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';

// Fixed seed: the same cases every run.
const SEEDED = { seed: 20240501, numRuns: 100 };
import { buildReplayIndex, drawOtherHost, newDrawStats } from './replay-index';
import { leafCallsFromRows, synthesizeLeafCalls } from './synthetic';

describe('replay index', () => {
  test.prop(
    [
      fc.integer({ min: 1, max: 60 }),
      fc.integer({ min: 1, max: 8 }),
      fc.integer({ min: 1, max: 5 }),
      fc.integer({ min: 1, max: 5000 }),
      fc.integer({ min: 1, max: 200 }),
    ],
    SEEDED,
  )(
    'every call sits once in its window, grouped by host',
    (fanouts, width, hosts, perSec, minPool) => {
      const calls = synthesizeLeafCalls({ fanouts, width, hosts, fanoutsPerSecond: perSec });
      const ix = buildReplayIndex(calls, { drawWindowMs: 1000, minPoolCalls: minPool });
      expect(Array.from(ix.pool).sort((a, b) => a - b)).toEqual(
        Array.from({ length: fanouts * width }, (_, i) => i),
      );
      for (let g = 0; g + 1 < ix.groupStart.length; g++) {
        const members = Array.from(ix.pool.subarray(ix.groupStart[g], ix.groupStart[g + 1]));
        expect(new Set(members.map((i) => calls.host[i])).size).toBe(1);
        for (const i of members) expect(ix.callGroup[i]).toBe(g);
      }
      for (let f = 0; f < fanouts; f++) {
        const w = ix.fanoutWindow[f] ?? -1;
        const inWindow = ix.pool.subarray(ix.windowStart[w], ix.windowStart[w + 1]);
        expect(inWindow.includes(calls.fanoutOffsets[f] ?? -1)).toBe(true);
      }
      // Windows hold at least minPool calls unless there is only one.
      for (let w = 0; ix.windows > 1 && w < ix.windows; w++)
        expect((ix.windowStart[w + 1] ?? 0) - (ix.windowStart[w] ?? 0)).toBeGreaterThanOrEqual(
          Math.min(minPool, fanouts * width),
        );
    },
  );

  test('draws land on another host of the same window, uniformly', () => {
    // Window 0: fan-outs at 0 ms; window 1 (>= 1 s later). Host 0 vs hosts 1 and 2.
    const row = [
      { durationMs: 1, host: 0 },
      { durationMs: 2, host: 1 },
      { durationMs: 3, host: 2 },
    ];
    const calls = leafCallsFromRows([0, 0, 2000, 2000], [row, row, row, row], 3);
    const ix = buildReplayIndex(calls, { minPoolCalls: 1 });
    expect(ix.windows).toBe(2);
    const stats = newDrawStats();
    const hits = new Map<number, number>();
    for (let k = 0; k < 1000; k++) {
      const j = drawOtherHost(ix, 1, 6, (k + 0.5) / 1000, stats); // call 6: host 0, window 1
      expect(calls.host[j]).not.toBe(0);
      expect(j).toBeGreaterThanOrEqual(6);
      hits.set(j, (hits.get(j) ?? 0) + 1);
    }
    expect([...hits.values()]).toEqual([250, 250, 250, 250]);
    expect(stats.outsideWindow).toBe(0);
  });

  test('one-host windows fall back to another host elsewhere, then to the same host', () => {
    const calls = leafCallsFromRows(
      [0, 5000],
      [[{ durationMs: 1, host: 0 }], [{ durationMs: 2, host: 1 }]],
      2,
    );
    const ix = buildReplayIndex(calls, { minPoolCalls: 1 });
    const stats = newDrawStats();
    expect(drawOtherHost(ix, 0, 0, 0.1, stats)).toBe(1);
    expect(stats.outsideWindow).toBe(1);
    const single = leafCallsFromRows(
      [0],
      [
        [
          { durationMs: 1, host: 0 },
          { durationMs: 2, host: 0 },
        ],
      ],
      1,
    );
    const s2 = newDrawStats();
    expect(single.host[drawOtherHost(buildReplayIndex(single), 0, 0, 0.9, s2)]).toBe(0);
    expect(s2.sameHost).toBe(1);
  });
});
