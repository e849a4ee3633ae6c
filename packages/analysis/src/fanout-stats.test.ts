import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import {
  fanoutMaxima,
  fanoutPickHashes,
  fanoutTimes,
  p95Rank,
  table1,
  widthStats,
} from './fanout-stats';
import { paperFanouts } from './fixtures';
import { pickIndex } from './hash';
import { buildLeafCalls, type FanoutRecord } from './leaf-calls-builder';
import { sortAscending } from './quantile';

/** Brute force, written differently on purpose: plain arrays, counting, R's type-7 formula. */
function bruteQuantile(values: number[], q: number): number {
  const x = [...values].sort((a, b) => a - b);
  const h = (x.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, x.length - 1);
  return (x[lo] as number) + (h - lo) * ((x[hi] as number) - (x[lo] as number));
}

/** The smallest finishing time t with #(finishing <= t) >= 0.95 N (exact rational test). */
function bruteP95(fin: number[]): number {
  const n = fin.length;
  for (const t of [...fin].sort((a, b) => a - b)) {
    if (fin.filter((x) => x <= t).length * 100 >= 95 * n) return t;
  }
  throw new Error('unreachable');
}

const fanoutArb = fc.array(
  fc.record({
    calls: fc.array(
      fc.record({
        startMs: fc.double({ min: 0, max: 5, noNaN: true }),
        durationMs: fc.double({ min: 0, max: 100, noNaN: true }),
      }),
      { minLength: 1, maxLength: 120 },
    ),
    id: fc.string({ minLength: 1, maxLength: 8 }),
  }),
  { minLength: 1, maxLength: 30 },
);

function toCalls(fs: { calls: { startMs: number; durationMs: number }[]; id: string }[]) {
  const records: FanoutRecord[] = fs.map((f, i) => ({
    traceId: `${f.id}-${i}`,
    parentSpanId: 'p',
    startMs: i,
    calls: f.calls.map((c) => ({ ...c, host: 'h', mode: 'm', background: 'none' })),
  }));
  return buildLeafCalls(records);
}

describe('Table 1 order statistics', () => {
  it('ceil(0.95 N) in integers', () => {
    expect([1, 2, 19, 20, 21, 100, 101].map(p95Rank)).toEqual([1, 2, 19, 19, 20, 95, 96]);
    for (let n = 1; n < 5000; n++) expect(p95Rank(n)).toBe(Math.ceil((95 * n) / 100));
  });

  test.prop([fanoutArb, fc.nat()])(
    'per-fan-out statistics equal a brute-force computation',
    (fs, seed) => {
      const calls = toCalls(fs);
      const picks = fanoutPickHashes(calls, seed);
      const t = fanoutTimes(calls, picks);
      const max = fanoutMaxima(calls);
      fs.forEach((f, i) => {
        const fin = f.calls.map((c) => c.startMs + c.durationMs);
        const sorted = [...fin].sort((a, b) => a - b);
        expect(t.width[i]).toBe(fin.length);
        expect(t.allLeavesMs[i]).toBe(Math.max(...fin));
        expect(max.allLeavesMs[i]).toBe(Math.max(...fin));
        expect(t.p95LeavesMs[i]).toBe(bruteP95(fin));
        expect(t.oneLeafMs[i]).toBe(sorted[pickIndex(picks[i] as number, fin.length)]);
        const s = max.straggler[i] as number;
        expect((calls.startMs[s] as number) + (calls.durationMs[s] as number)).toBe(
          Math.max(...fin),
        );
      });
      const t1 = table1(t);
      const all = Array.from(t.allLeavesMs);
      const p95 = Array.from(t.p95LeavesMs);
      const one = Array.from(t.oneLeafMs);
      for (const [q, key] of [
        [0.5, 'p50'],
        [0.95, 'p95'],
        [0.99, 'p99'],
        [0.999, 'p999'],
      ] as const) {
        expect(t1.allLeaves[key]).toBeCloseTo(bruteQuantile(all, q), 9);
        expect(t1.p95Leaves[key]).toBeCloseTo(bruteQuantile(p95, q), 9);
        expect(t1.oneLeaf[key]).toBeCloseTo(bruteQuantile(one, q), 9);
      }
      const share =
        t1.allLeaves.p99 === 0 ? 0 : (t1.allLeaves.p99 - t1.p95Leaves.p99) / t1.allLeaves.p99;
      expect(t1.slowest5pctShareOfP99).toBeCloseTo(share, 12);
      expect(widthStats(t.width).max).toBe(Math.max(...fs.map((f) => f.calls.length)));
    },
  );

  test.prop([fanoutArb])('one leaf <= 95% of leaves <= all leaves, in every fan-out', (fs) => {
    const t = fanoutTimes(toCalls(fs), new Uint32Array(fs.length).fill(0xffffffff));
    for (let i = 0; i < fs.length; i++) {
      expect(t.p95LeavesMs[i]).toBeLessThanOrEqual(t.allLeavesMs[i] as number);
      // The largest hash picks the slowest leaf.
      expect(t.oneLeafMs[i]).toBe(t.allLeavesMs[i]);
    }
  });

  it('the random-leaf pick is uniform: one leaf is distributed as a pooled leaf', () => {
    // Paper scenario: 1% of calls at ~1 s. The share of fan-outs whose picked leaf is slow must
    // be ~1%; 4000 fan-outs: sd = sqrt(0.01 * 0.99 / 4000) = 0.0016, tolerance 4 sd.
    const calls = paperFanouts({ fanouts: 4000, width: 100, slowProbability: 0.01, seed: 9 });
    const t = fanoutTimes(calls, fanoutPickHashes(calls, 1));
    const slow = Array.from(t.oneLeafMs).filter((x) => x > 500).length / 4000;
    expect(Math.abs(slow - 0.01)).toBeLessThan(0.0064);
    // The paper's Table 1 shape: one leaf fast at p50/p95, all leaves ~1 s already at p50.
    const t1 = table1(t);
    expect(t1.oneLeaf.p95).toBeLessThan(12);
    expect(t1.allLeaves.p50).toBeGreaterThan(1000);
    expect(t1.slowest5pctShareOfP99).toBeGreaterThan(0.98);
    expect(sortAscending(t.width)[0]).toBe(100);
  });
});
