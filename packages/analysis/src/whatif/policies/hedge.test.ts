import { describe, expect, it } from 'vitest';
import { buildReplayIndex } from './replay-index';
import { replayHedge } from './hedge';
import { SeededRandom } from '../../random';
import { leafCallsFromRows, synthesizeLeafCalls } from '../fanout/synthetic';
import { simulateWhatIf } from '../fanout/simulate';

const share = (xs: Float64Array, pred: (x: number) => boolean): number => {
  let n = 0;
  for (const x of xs) if (pred(x)) n++;
  return n / xs.length;
};

describe('hedge: closed form for independent identically distributed calls', () => {
  // Width-1 fan-outs, so a fan-out's time is its one call's time. Latency ~ Exp(mean 10 ms).
  const n = 200_000;
  const mean = 10;
  const d = 10;
  const calls = synthesizeLeafCalls({
    fanouts: n,
    width: 1,
    hosts: 20,
    seed: 7,
    fanoutsPerSecond: 20_000,
    latencyMs: (u) => -mean * Math.log(1 - u()),
  });
  const S = (t: number): number => (t < 0 ? 1 : Math.exp(-t / mean));
  const hedged = (t: number): number => (t < d ? S(t) : S(t) * S(t - d));

  it('matches S(t) before d and S(t) S(t - d) after, within binomial bounds', () => {
    const r = replayHedge(buildReplayIndex(calls), d, 2, new SeededRandom(11));
    // Tolerance: 5 binomial standard errors sqrt(p (1 - p) / n) per grid point. That covers the
    // 13 points jointly (Bonferroni) and the extra variance of backup latencies drawn from
    // finite windows (about 20,000 calls each), which at most doubles the variance.
    for (const t of [1, 3, 5, 8, 9.9, 10, 12, 15, 20, 25, 30, 40, 60]) {
      const expected = hedged(t);
      const observed = share(r.allLeavesMs, (x) => x > t);
      const bound = 5 * Math.sqrt((expected * (1 - expected)) / n) + 1 / n;
      expect(Math.abs(observed - expected), `t = ${t}`).toBeLessThanOrEqual(bound);
    }
    // The backup share is P(L > d) = S(d): same binomial tolerance.
    expect(Math.abs(r.backups / n - S(d))).toBeLessThanOrEqual(
      5 * Math.sqrt((S(d) * (1 - S(d))) / n),
    );
  });

  it('with 3 attempts: S(t) S(t - d) S(t - 2d) after 2d', () => {
    const r = replayHedge(buildReplayIndex(calls), d, 3, new SeededRandom(12));
    const three = (t: number): number => hedged(t) * (t < 2 * d ? 1 : S(t - 2 * d));
    // Same tolerance as above: 5 binomial standard errors per point.
    for (const t of [5, 15, 19.9, 20, 25, 30, 40]) {
      const expected = three(t);
      const observed = share(r.allLeavesMs, (x) => x > t);
      const bound = 5 * Math.sqrt((expected * (1 - expected)) / n) + 1 / n;
      expect(Math.abs(observed - expected), `t = ${t}`).toBeLessThanOrEqual(bound);
    }
  });

  it('costs about 5% extra calls when hedging at the call p95', () => {
    // With continuous latencies exactly n - ceil(0.95 n) calls exceed the nearest-rank p95.
    for (const policy of [
      { kind: 'hedge', delayPercentile: 95 },
      { kind: 'hedge', maxExtraLoad: 0.05 },
      { kind: 'hedge' }, // default: delayPercentile 95
    ] as const) {
      const r = simulateWhatIf(calls, policy, { seed: 3, bootstrapSamples: 200 });
      expect(r.extraLoad).toBeCloseTo(0.05, 4);
    }
  });
});

describe('hedge: fan-out of 100 with 1 call in 100 slow', () => {
  // Fast calls 1-5 ms, slow calls 1 s with probability 0.01, independent.
  const fanouts = 40_000;
  const calls = synthesizeLeafCalls({
    fanouts,
    width: 100,
    hosts: 50,
    seed: 5,
    latencyMs: (u) => (u() < 0.01 ? 1000 : 1 + 4 * u()),
  });
  const slow = (x: number): boolean => x >= 500;

  it('63.4% of requests are slow unhedged and about 1.0% with a backup after 10 ms', () => {
    const base = replayHedge(
      buildReplayIndex(calls),
      Number.POSITIVE_INFINITY,
      2,
      new SeededRandom(1),
    );
    const hedged = replayHedge(buildReplayIndex(calls), 10, 2, new SeededRandom(2));
    const pBase = 1 - Math.pow(0.99, 100); // 0.634
    const pHedged = 1 - Math.pow(1 - 0.01 * 0.01, 100); // 0.00995
    // Tolerance: 4 binomial standard errors over 40,000 requests (0.96 and 0.20 points); the
    // backup pool's own slow share (windows of 100,000 calls) adds well under that.
    const se = (p: number): number => Math.sqrt((p * (1 - p)) / fanouts);
    expect(Math.abs(share(base.allLeavesMs, slow) - pBase)).toBeLessThanOrEqual(4 * se(pBase));
    expect(Math.abs(share(hedged.allLeavesMs, slow) - pHedged)).toBeLessThanOrEqual(
      4 * se(pHedged),
    );
    expect(base.backups).toBe(0);
  });
});

describe('hedge: siblings are never collapsed', () => {
  it('N identical parallel calls get N independent backups', () => {
    // Fan-outs of 100 identical calls (host 0, 100 ms) interleaved with filler fan-outs on
    // hosts 1..9 whose calls are slow (1 s) 1 time in 100. Each identical call gets its own
    // backup; the fan-out stays at 100 ms when ANY of its 100 backups is slow: 1 - 0.99^100 =
    // 63.4%. Collapsing the siblings into one branch would give 1%.
    const rng = new SeededRandom(9);
    const starts: number[] = [];
    const rows: { durationMs: number; host: number }[][] = [];
    for (let f = 0; f < 4000; f++) {
      starts.push(1e12 + f);
      if (f % 2 === 0) rows.push(Array.from({ length: 100 }, () => ({ durationMs: 100, host: 0 })));
      else
        rows.push(
          Array.from({ length: 100 }, () => ({
            durationMs: rng.float() < 0.01 ? 1000 : 5,
            host: 1 + rng.below(9),
          })),
        );
    }
    const calls = leafCallsFromRows(starts, rows, 10);
    const r = replayHedge(buildReplayIndex(calls), 10, 2, new SeededRandom(4));
    const identical = r.allLeavesMs.filter((_, f) => f % 2 === 0);
    const stuck = share(identical, (x) => x >= 100);
    // 2,000 such fan-outs: 4 binomial standard errors is 4.3 points.
    expect(Math.abs(stuck - 0.634)).toBeLessThan(4 * Math.sqrt((0.634 * 0.366) / 2000));
    // Every one of the 200,000 identical calls (and every slow filler call) got a backup.
    const slowFillers = rows.flat().filter((c) => c.host !== 0 && c.durationMs > 10).length;
    expect(r.backups).toBe(2000 * 100 + slowFillers);
  });
});
