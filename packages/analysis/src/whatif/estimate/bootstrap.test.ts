import { describe, expect, it } from 'vitest';
import {
  bootstrapPercentiles,
  bootstrapQuantiles,
  bootstrapReads,
  PERCENTILE_QS,
  selectedQuantiles,
} from './bootstrap';
import { sortedCopy } from './radix-sort';
import { sortedAtRanges } from './select-ranges';
import { percentileReads, percentiles } from '../request/answer/answer';
import { SeededRandom } from '../../random';
import { quantileInclusive } from '../../quantile';

describe('order-statistic bootstrap', () => {
  const rng = new SeededRandom(21);
  const n = 2000;
  const values = Float64Array.from({ length: n }, () => Math.exp(2 * rng.normal()));

  it('has the distribution of resampling the values with replacement', () => {
    // Reference: the plain bootstrap (draw n indexes, take the order statistic), 1,000 times.
    const q = 0.9;
    const plain = new Float64Array(1000);
    const scratch = new Float64Array(n);
    const r = new SeededRandom(5);
    for (let b = 0; b < plain.length; b++) {
      for (let j = 0; j < n; j++) scratch[j] = values[r.below(n)] ?? Number.NaN;
      plain[b] = quantileInclusive(scratch.sort(), q);
    }
    plain.sort();
    const [fast] = bootstrapQuantiles(values, [q], new SeededRandom(6), 1000);
    const plainLow = plain[24] ?? Number.NaN;
    const plainHigh = plain[974] ?? Number.NaN;
    // Two independent 1,000-replicate estimates of the same 2.5%/97.5% points: they agree to
    // within a few ranks of the data around the p90, i.e. within 8% of the width of the interval.
    const width = plainHigh - plainLow;
    expect(Math.abs((fast?.low ?? 0) - plainLow)).toBeLessThan(0.08 * width + 1e-9);
    expect(Math.abs((fast?.high ?? 0) - plainHigh)).toBeLessThan(0.08 * width + 1e-9);
  });

  it('brackets the estimate, is seeded, and handles empty and single inputs', () => {
    const a = bootstrapQuantiles(values, [0.5, 0.99], new SeededRandom(1));
    const b = bootstrapQuantiles(values, [0.5, 0.99], new SeededRandom(1));
    expect(a).toEqual(b);
    for (const e of a) {
      expect(e.low).toBeLessThanOrEqual(e.value);
      expect(e.high).toBeGreaterThanOrEqual(e.value);
      expect(e.high).toBeGreaterThan(e.low);
    }
    expect(bootstrapQuantiles(new Float64Array(0), [0.5], new SeededRandom(1))[0]?.value).toBeNaN();
    expect(bootstrapQuantiles(Float64Array.of(4), [0.5], new SeededRandom(1))[0]).toEqual({
      value: 4,
      low: 4,
      high: 4,
    });
  });

  it('selectedQuantiles equals the quantiles of a sorted copy, without sorting', () => {
    const r = new SeededRandom(5);
    const qs = [0, 0.5, 0.9, 0.99, 0.999, 1];
    for (const size of [1, 7, 5000, 60_000]) {
      // Heavy tail and ties: log-normal times rounded to 0.1 ms.
      const v = Float64Array.from(
        { length: size },
        () => Math.round(10 * Math.exp(r.normal())) / 10,
      );
      const before = v.slice();
      const sorted = sortedCopy(v);
      expect(selectedQuantiles(v, qs)).toEqual(qs.map((q) => quantileInclusive(sorted, q)));
      expect(Array.from(v)).toEqual(Array.from(before)); // the input is left as it was
    }
    expect(selectedQuantiles(new Float64Array(0), [0.5])).toEqual([Number.NaN]);
  });
});

describe('bootstrapReads', () => {
  it('plans the reads so values ordered there elsewhere give the same bits', () => {
    const gen = new SeededRandom(21);
    for (const [m, size] of [
      [50_000, 25_000],
      [3000, 3000], // few values: sorted whole
      [0, 0],
    ] as const) {
      const values = Float64Array.from({ length: m }, () => 5 + 80 * gen.float() ** 3);
      const rng = new SeededRandom(4);
      const want = bootstrapPercentiles(values, rng.clone(), 500, size);
      const reads = bootstrapReads(m, PERCENTILE_QS, rng.clone(), 500, size);
      // A few ranges of a large input; all of a small one; nothing of none.
      expect(typeof reads === 'string' ? reads : 'ranges').toBe(
        m === 0 ? 'none' : m < 4096 ? 'all' : 'ranges',
      );
      const ordered =
        reads === 'all' || reads === 'none'
          ? sortedCopy(values)
          : sortedAtRanges(values, reads, new Float64Array(m));
      expect(bootstrapPercentiles(values, rng.clone(), 500, size, ordered)).toEqual(want);
    }
  });
});

describe('percentileReads', () => {
  it('orders where percentiles() reads: the same percentiles as a full sort', () => {
    const gen = new SeededRandom(5);
    for (const m of [1, 2, 3, 10, 999, 1000, 1001, 70_000]) {
      const values = Float64Array.from({ length: m }, () =>
        gen.below(4) === 0 ? gen.below(20) : 3 + 50 * gen.float() ** 2,
      );
      const ordered = sortedAtRanges(values, percentileReads(m), new Float64Array(m));
      expect(percentiles(ordered), `m = ${m}`).toEqual(percentiles(sortedCopy(values)));
    }
    expect(percentileReads(0)).toEqual([]);
  });
});
