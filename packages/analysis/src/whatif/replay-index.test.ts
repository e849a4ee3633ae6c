import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import {
  buildReplayIndex,
  drawOtherHost,
  newDrawStats,
  windowCall,
  windowSize,
} from './replay-index';
import { SeededRandom } from './random';
import { leafCallsFromRows, synthesizeLeafCalls } from './synthetic';
import type { LeafCalls } from '../types';

// Fixed seed: the same cases every run.
const SEEDED = { seed: 20240501, numRuns: 60 };

/** The same calls with fan-outs stored in reverse time order (not contiguous). */
function reversed(c: LeafCalls): LeafCalls {
  const F = c.fanoutStartMs.length;
  const rows = Array.from({ length: F }, (_, k) => {
    const f = F - 1 - k;
    return Array.from(
      { length: (c.fanoutOffsets[f + 1] ?? 0) - (c.fanoutOffsets[f] ?? 0) },
      (_, j) => {
        const i = (c.fanoutOffsets[f] ?? 0) + j;
        return { durationMs: c.durationMs[i] ?? 0, host: c.host[i] ?? 0 };
      },
    );
  });
  return leafCallsFromRows(Array.from(c.fanoutStartMs).reverse(), rows, c.hosts.length);
}

describe('replay index', () => {
  test.prop(
    [
      fc.integer({ min: 1, max: 60 }),
      fc.integer({ min: 1, max: 8 }),
      fc.integer({ min: 1, max: 5000 }),
      fc.integer({ min: 1, max: 200 }),
      fc.boolean(),
    ],
    SEEDED,
  )('windows list every call once, in time order', (fanouts, width, perSec, minPool, rev) => {
    const base = synthesizeLeafCalls({ fanouts, width, hosts: 3, fanoutsPerSecond: perSec });
    const calls = rev ? reversed(base) : base;
    const ix = buildReplayIndex(calls, { drawWindowMs: 1000, minPoolCalls: minPool });
    expect(ix.contiguous).toBe(!rev || fanouts === 1);
    const seen: number[] = [];
    let lastStart = -Infinity;
    for (let w = 0; w < ix.windows; w++) {
      const size = windowSize(ix, w);
      // Windows hold at least minPool calls unless there is only one.
      if (ix.windows > 1) expect(size).toBeGreaterThanOrEqual(minPool);
      for (let r = 0; r < size; r++) {
        const i = windowCall(ix, w, r);
        seen.push(i);
        // The call's fan-out belongs to window w, and windows advance in time.
        let f = 0;
        while ((calls.fanoutOffsets[f + 1] ?? 0) <= i) f++;
        expect(ix.fanoutWindow[f]).toBe(w);
        const t = calls.fanoutStartMs[f] ?? 0;
        expect(t).toBeGreaterThanOrEqual(lastStart);
        lastStart = t;
      }
    }
    expect(seen.sort((a, b) => a - b)).toEqual(
      Array.from({ length: fanouts * width }, (_, i) => i),
    );
  });

  test('draws land on another host of the same window, uniformly', () => {
    // Window 0: two fan-outs at 0 ms; window 1: two at 2 s. Each fan-out: hosts 0, 1, 2.
    const row = [
      { durationMs: 1, host: 0 },
      { durationMs: 2, host: 1 },
      { durationMs: 3, host: 2 },
    ];
    const calls = leafCallsFromRows([0, 0, 2000, 2000], [row, row, row, row], 3);
    const ix = buildReplayIndex(calls, { minPoolCalls: 1 });
    expect(ix.windows).toBe(2);
    const stats = newDrawStats();
    const rng = new SeededRandom(3);
    const hits = new Map<number, number>();
    for (let k = 0; k < 4000; k++) {
      const j = drawOtherHost(ix, 1, 6, rng, stats); // call 6: host 0, window 1
      expect(calls.host[j]).not.toBe(0);
      expect(j).toBeGreaterThanOrEqual(6);
      hits.set(j, (hits.get(j) ?? 0) + 1);
    }
    // 4 eligible calls, 1,000 expected each: 4 binomial standard errors is 110.
    expect([...hits.keys()].sort((a, b) => a - b)).toEqual([7, 8, 10, 11]);
    for (const count of hits.values()) expect(Math.abs(count - 1000)).toBeLessThan(110);
    expect(stats.outsideWindow).toBe(0);
    // Excluding host 1 leaves host 2 only.
    const excluded = Uint8Array.of(0, 1, 0);
    for (let k = 0; k < 100; k++)
      expect(calls.host[drawOtherHost(ix, 1, 6, rng, stats, excluded)]).toBe(2);
  });

  test('one-host windows fall back to another host elsewhere, then to the same host', () => {
    const calls = leafCallsFromRows(
      [0, 5000],
      [[{ durationMs: 1, host: 0 }], [{ durationMs: 2, host: 1 }]],
      2,
    );
    const ix = buildReplayIndex(calls, { minPoolCalls: 1 });
    const stats = newDrawStats();
    expect(drawOtherHost(ix, 0, 0, new SeededRandom(1), stats)).toBe(1);
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
    expect(
      single.host[drawOtherHost(buildReplayIndex(single), 0, 0, new SeededRandom(1), s2)],
    ).toBe(0);
    expect(s2.sameHost).toBe(1);
    // Nothing allowed at all: -1.
    expect(drawOtherHost(ix, 0, 0, new SeededRandom(1), stats, Uint8Array.of(0, 1))).toBe(-1);
  });
});
