import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { attributeStragglers } from './attribution';
import { causeFanouts } from './fixtures';
import { quantileInclusive, sortAscending } from './quantile';
import { SeededRandom } from './random';
import { bootstrapQuantiles, bootstrapWeightedQuantiles } from './whatif/estimate/bootstrap';
import { simulateWhatIf } from './whatif/fanout/simulate';
import {
  allOnes,
  effectiveSize,
  quantileMaybeWeighted,
  sortWeighted,
  weightedQuantile,
} from './weighted-quantile';

const values = fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), {
  minLength: 1,
  maxLength: 60,
});
const level = fc.double({ min: 0, max: 1, noNaN: true });

describe('weighted type-7 quantiles', () => {
  it('interpolates over the population the weights describe', () => {
    // 1 x1, 2 x3: the population 1, 2, 2, 2.
    const s = sortWeighted([2, 1], (i) => (i === 0 ? 3 : 1));
    expect(Array.from(s.values)).toEqual([1, 2]);
    expect(Array.from(s.cumulative)).toEqual([1, 4]);
    expect(weightedQuantile(s, 0)).toBe(1);
    expect(weightedQuantile(s, 0.2)).toBeCloseTo(1.6, 12);
    expect(weightedQuantile(s, 0.5)).toBe(2);
    expect(
      weightedQuantile(
        sortWeighted([], () => 1),
        0.5,
      ),
    ).toBeNaN();
  });

  test.prop([values, level], { seed: 21 })('all weights 1 give type 7', (xs, q) => {
    const s = sortWeighted(xs, () => 1);
    expect(weightedQuantile(s, q)).toBe(quantileInclusive(sortAscending(xs), q));
    expect(quantileMaybeWeighted(xs, new Float64Array(xs.length).fill(1), q)).toBe(
      quantileInclusive(sortAscending(xs), q),
    );
  });

  test.prop(
    [
      fc.array(
        fc.tuple(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.integer({ min: 1, max: 6 })),
        {
          minLength: 1,
          maxLength: 40,
        },
      ),
      level,
    ],
    { seed: 22 },
  )('integer weights give type 7 of the sample with each value repeated', (pairs, q) => {
    const expanded = pairs.flatMap(([x, w]) => Array.from({ length: w }, () => x));
    const s = sortWeighted(
      pairs.map(([x]) => x),
      (i) => pairs[i]?.[1] ?? 1,
    );
    const got = weightedQuantile(s, q);
    const want = quantileInclusive(sortAscending(expanded), q);
    expect(Math.abs(got - want)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(want)));
  });

  test.prop(
    [
      fc.array(
        fc.tuple(
          fc.double({ min: 0, max: 1e3, noNaN: true }),
          fc.double({ min: 1, max: 64, noNaN: true }),
        ),
        {
          minLength: 1,
          maxLength: 80,
        },
      ),
      level,
      level,
    ],
    { seed: 23 },
  )('is monotone in q and stays within the values', (pairs, q1, q2) => {
    const xs = pairs.map(([x]) => x);
    const s = sortWeighted(xs, (i) => pairs[i]?.[1] ?? 1);
    const [lo, hi] = q1 <= q2 ? [q1, q2] : [q2, q1];
    expect(weightedQuantile(s, lo)).toBeLessThanOrEqual(weightedQuantile(s, hi));
    expect(weightedQuantile(s, lo)).toBeGreaterThanOrEqual(Math.min(...xs));
    expect(weightedQuantile(s, hi)).toBeLessThanOrEqual(Math.max(...xs));
  });

  it('sorts past 32 distinct weights by index, with the same answer', () => {
    const r = new SeededRandom(5);
    const xs = Array.from({ length: 500 }, () => r.float() * 100);
    const many = sortWeighted(xs, (i) => 1 + (i % 50));
    const few = sortWeighted(xs, (i) => 1 + (i % 5));
    expect(Array.from(many.values)).toEqual(Array.from(sortAscending(xs)));
    expect(many.cumulative[499]).toBe(
      Array.from({ length: 500 }, (_, i) => 1 + (i % 50)).reduce((a, b) => a + b),
    );
    expect(Array.from(few.values)).toEqual(Array.from(sortAscending(xs)));
  });

  it('Kish effective size: n for equal weights, fewer for unequal', () => {
    expect(effectiveSize([2, 2, 2, 2])).toBe(4);
    expect(effectiveSize([1, 1, 1, 9])).toBeCloseTo(144 / 84, 12);
    expect(allOnes(undefined)).toBe(true);
    expect(allOnes(Float64Array.of(1, 1))).toBe(true);
    expect(allOnes(Float64Array.of(1, 2))).toBe(false);
  });
});

describe('weighted bootstrap', () => {
  it('equals the unweighted bootstrap in distribution when the weights are equal', () => {
    const r = new SeededRandom(9);
    const xs = Float64Array.from({ length: 2000 }, () => Math.exp(r.normal()));
    const plain = bootstrapQuantiles(xs, [0.5, 0.99], new SeededRandom(1), 2000);
    // Equal weights 4: the weighted value is type 7 over 4 copies (close to, not exactly, type 7
    // over one), the interval's width that of 2000 requests.
    const w = bootstrapWeightedQuantiles(
      sortWeighted(xs, () => 4),
      [0.5, 0.99],
      new SeededRandom(1),
      2000,
      2000,
    );
    for (let i = 0; i < 2; i++) {
      const a = plain[i];
      const b = w[i];
      if (!a || !b) throw new Error('missing estimate');
      expect(Math.abs(b.value - a.value) / a.value).toBeLessThan(0.01);
      const width = (e: typeof a) => e.high - e.low;
      expect(Math.abs(width(b) - width(a)) / width(a)).toBeLessThan(0.15);
    }
  });

  it('covers the population median about 95% of the time (seeded)', () => {
    // Population: 2,000 draws of N(0, 1) (median 0); half are kept (weight 1), half kept with
    // probability 1/8 (weight 8), independently of the value. About 1,125 stored values but
    // Kish's effective size ~444: resampling 1,125 would give intervals 1.6x too narrow
    // (measured: 152 of 200 covered instead of 192).
    const r = new SeededRandom(11);
    let covered = 0;
    const trials = 200;
    for (let t = 0; t < trials; t++) {
      const xs: number[] = [];
      const ws: number[] = [];
      for (let i = 0; i < 2000; i++) {
        const x = r.normal();
        if (i % 2 === 0) {
          xs.push(x);
          ws.push(1);
        } else if (r.float() < 1 / 8) {
          xs.push(x);
          ws.push(8);
        }
      }
      const s = sortWeighted(xs, (i) => ws[i] ?? 1);
      const [e] = bootstrapWeightedQuantiles(s, [0.5], r, 400, effectiveSize(ws));
      if (e && e.low <= 0 && 0 <= e.high) covered++;
    }
    // Binomial(200, 0.95): 190 +- 3.1; the bounds allow 3 sd either way.
    expect(covered).toBeGreaterThan(180);
    expect(covered).toBeLessThanOrEqual(200);
  });
});

describe('unweighted path unchanged', () => {
  const calls = causeFanouts({
    fanouts: 3000,
    width: 8,
    hosts: 12,
    seed: 4,
    sickHost: 3,
    sickExtraMs: 40,
    sickProbability: 0.2,
  });
  const ones = { ...calls, weights: new Float64Array(3000).fill(1) };

  it('what-if: weights all 1 give the answer without weights, bit for bit', () => {
    for (const policy of [
      { kind: 'hedge', delayMs: 10 },
      { kind: 'good-enough', fraction: 0.9 },
    ] as const) {
      const a = simulateWhatIf(calls, policy, { seed: 7, bootstrapSamples: 500 });
      const b = simulateWhatIf(ones, policy, { seed: 7, bootstrapSamples: 500 });
      expect(b).toEqual(a);
    }
  });

  it('stragglers: weights all 1 give the answer without weights, bit for bit', () => {
    const opts = { dimensions: ['host', 'attr:zone'] as const, seed: 3 };
    expect(attributeStragglers(ones, { ...opts, dimensions: [...opts.dimensions] })).toEqual(
      attributeStragglers(calls, { ...opts, dimensions: [...opts.dimensions] }),
    );
  });

  it('stragglers: weighted counts are sums of weights; the tests count stored calls', () => {
    const twice = { ...calls, weights: new Float64Array(3000).fill(2) };
    const a = attributeStragglers(calls, { dimensions: ['host'], seed: 3 });
    // The same threshold (type 7 over doubled values interpolates at other positions).
    const opts = { dimensions: ['host' as const], seed: 3, thresholdMs: a.tailThresholdMs };
    const b = attributeStragglers(twice, opts);
    expect(b.fanouts).toBe(2 * a.fanouts);
    expect(b.calls).toBe(2 * a.calls);
    expect(b.tailFanouts).toBe(2 * a.tailFanouts);
    b.rows.forEach((row, i) => {
      const x = a.rows[i];
      expect(row.value).toBe(x?.value);
      expect(row.calls).toBe(2 * (x?.calls ?? 0));
      expect(row.stragglers).toBe(2 * (x?.stragglers ?? 0));
      expect(row.pValue).toBe(x?.pValue);
      expect(row.riskRatio).toBe(x?.riskRatio);
      expect(row.trafficShare).toBeCloseTo(x?.trafficShare ?? -1, 12);
      expect(row.stragglerShare).toBeCloseTo(x?.stragglerShare ?? -1, 12);
    });
  });
});
