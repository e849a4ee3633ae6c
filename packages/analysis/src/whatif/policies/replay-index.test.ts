import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import {
  buildReplayIndex,
  callAt,
  drawOtherHost,
  neighbourhood,
  newDrawStats,
} from './replay-index';
import { SeededRandom } from '../../random';
import { bound, timeBuckets } from './time-buckets';
import { leafCallsFromRows, synthesizeLeafCalls } from '../fanout/synthetic';
import type { LeafCalls } from '../../types';

// Fixed seed: the same cases every run.
const SEEDED = { seed: 20240501, numRuns: 60 };

/** The same calls with fan-outs stored in reverse time order (not contiguous). */
function reversed(c: LeafCalls): LeafCalls {
  const F = c.fanoutStartMs.length;
  const rows = Array.from({ length: F }, (_, k) => {
    const f = F - 1 - k;
    const a = c.fanoutOffsets[f] ?? 0;
    const b = c.fanoutOffsets[f + 1] ?? 0;
    return Array.from({ length: b - a }, (_, j) => ({
      durationMs: c.durationMs[a + j] ?? 0,
      host: c.host[a + j] ?? 0,
    }));
  });
  return leafCallsFromRows(Array.from(c.fanoutStartMs).reverse(), rows, c.hosts.length);
}

const fanoutOf = (c: LeafCalls, i: number): number => {
  let f = 0;
  while ((c.fanoutOffsets[f + 1] ?? 0) <= i) f++;
  return f;
};

describe('replay index', () => {
  test.prop(
    [
      fc.integer({ min: 1, max: 60 }),
      fc.integer({ min: 2, max: 8 }),
      fc.integer({ min: 1, max: 5000 }),
      fc.integer({ min: 1, max: 200 }),
      fc.boolean(),
      fc.double({ min: -0.2, max: 1.2, noNaN: true }),
    ],
    SEEDED,
  )(
    'a neighbourhood holds the fan-outs within ±W/2, widened to minPoolCalls',
    (fanouts, width, perSec, minPool, rev, at) => {
      const base = synthesizeLeafCalls({ fanouts, width, hosts: 3, fanoutsPerSecond: perSec });
      const calls = rev ? reversed(base) : base;
      const ix = buildReplayIndex(calls, { drawWindowMs: 1000, minPoolCalls: minPool });
      expect(ix.contiguous).toBe(!rev || fanouts === 1);
      const first = base.fanoutStartMs[0] ?? 0;
      const span = (fanouts * 1000) / perSec;
      const t = first + at * span;
      const [lo, hi] = neighbourhood(ix, t);
      const g0 = ix.callsBefore[lo] ?? 0;
      const g1 = ix.callsBefore[hi] ?? 0;
      const inside = new Set<number>();
      for (let g = g0; g < g1; g++) inside.add(fanoutOf(calls, callAt(ix, lo, hi, g)));
      const within = [...Array(fanouts).keys()].filter(
        (f) => Math.abs((calls.fanoutStartMs[f] ?? 0) - t) <= 500,
      );
      // Every fan-out within ±500 ms is in; so are all calls of each fan-out in it.
      for (const f of within) expect(inside.has(f)).toBe(true);
      expect(g1 - g0).toBe(
        [...inside].reduce(
          (n, f) => n + (calls.fanoutOffsets[f + 1] ?? 0) - (calls.fanoutOffsets[f] ?? 0),
          0,
        ),
      );
      // Widened only as far as needed: at least minPool calls (or everything).
      expect(g1 - g0).toBeGreaterThanOrEqual(Math.min(minPool, fanouts * width));
      if (g1 - g0 >= minPool + 2 * width)
        for (const f of inside)
          expect(Math.abs((calls.fanoutStartMs[f] ?? 0) - t)).toBeLessThanOrEqual(500);
    },
  );

  test('draws land on another host at about the same time, uniformly', () => {
    // Two fan-outs at 0 ms, two at 2 s; each fan-out calls hosts 0, 1, 2.
    const row = [
      { durationMs: 1, host: 0 },
      { durationMs: 2, host: 1 },
      { durationMs: 3, host: 2 },
    ];
    const calls = leafCallsFromRows([0, 0, 2000, 2000], [row, row, row, row], 3);
    const ix = buildReplayIndex(calls, { minPoolCalls: 1 });
    const stats = newDrawStats();
    const rng = new SeededRandom(3);
    const hits = new Map<number, number>();
    for (let k = 0; k < 4000; k++) {
      const j = drawOtherHost(ix, 2010, 6, rng, stats); // call 6: host 0, at 2 s
      expect(calls.host[j]).not.toBe(0);
      hits.set(j, (hits.get(j) ?? 0) + 1);
    }
    // 4 eligible calls, 1,000 expected each: 4 binomial standard errors is 110.
    expect([...hits.keys()].sort((a, b) => a - b)).toEqual([7, 8, 10, 11]);
    for (const count of hits.values()) expect(Math.abs(count - 1000)).toBeLessThan(110);
    expect(stats.outsideWindow).toBe(0);
    // Excluding host 1 leaves host 2 only.
    const excluded = Uint8Array.of(0, 1, 0);
    for (let k = 0; k < 100; k++)
      expect(calls.host[drawOtherHost(ix, 2010, 6, rng, stats, excluded)]).toBe(2);
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
    const j = drawOtherHost(buildReplayIndex(single), 0, 0, new SeededRandom(1), s2);
    expect(single.host[j]).toBe(0);
    expect(s2.sameHost).toBe(1);
    // Nothing allowed at all: -1.
    expect(drawOtherHost(ix, 0, 0, new SeededRandom(1), stats, Uint8Array.of(0, 1))).toBe(-1);
  });
});

describe('buildReplayIndex on the same calls again', () => {
  const order = (c: LeafCalls): number[] => Array.from(buildReplayIndex(c).order);
  const byStart = (c: LeafCalls): number[] =>
    Array.from(c.fanoutStartMs.keys()).sort(
      (a, b) => (c.fanoutStartMs[a] ?? 0) - (c.fanoutStartMs[b] ?? 0) || a - b,
    );

  test.prop([fc.integer({ min: 1, max: 1000 })], SEEDED)(
    'reuses the order, and sorts again when the start column was rewritten in place',
    (seed) => {
      const c = reversed(synthesizeLeafCalls({ fanouts: 50, width: 3, hosts: 3, seed }));
      expect(order(c)).toEqual(byStart(c));
      expect(order(c)).toEqual(byStart(c));
      const rng = new SeededRandom(seed);
      for (let f = 0; f < c.fanoutStartMs.length; f++) c.fanoutStartMs[f] = rng.float() * 1000;
      expect(order(c)).toEqual(byStart(c));
    },
  );
});

describe('bound in time buckets', () => {
  /** The plain binary search the buckets stand in for. */
  const plain = (a: Float64Array, t: number, strict: boolean): number => {
    let lo = 0;
    let hi = a.length;
    while (lo < hi) {
      const m = (lo + hi) >>> 1;
      const x = a[m] ?? 0;
      if (x < t || (strict && x === t)) lo = m + 1;
      else hi = m;
    }
    return lo;
  };

  test.prop(
    [
      fc.array(fc.double({ min: -1e6, max: 1e12, noNaN: true }), { maxLength: 200 }),
      fc.array(fc.double({ min: -2e6, max: 2e12, noNaN: true }), { minLength: 1, maxLength: 20 }),
      fc.integer({ min: 0, max: 5 }),
    ],
    SEEDED,
  )('answers as the plain binary search, also for repeated and clustered times', (xs, ts, dup) => {
    // Repeats and a dense cluster: buckets holding many times, and empty ones.
    const all = [...xs, ...xs.slice(0, dup), ...xs.slice(0, dup).map((x) => x + 1e-9)];
    const a = Float64Array.from(all).sort();
    const bk = timeBuckets(a);
    for (const t of [...ts, ...all, Infinity, -Infinity, NaN])
      for (const strict of [false, true]) expect(bound(a, bk, t, strict)).toBe(plain(a, t, strict));
  });
});
