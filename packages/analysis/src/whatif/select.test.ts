import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';

// Fixed seed: the same cases every run.
const SEEDED = { seed: 20240501, numRuns: 100 };
import { nearestRank, quantileOf, quantileSorted, selectInPlace } from './select';

const values = fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), {
  minLength: 1,
  maxLength: 300,
});

describe('order statistics', () => {
  test.prop([values, fc.nat()], SEEDED)('selectInPlace finds the k-th smallest', (xs, k0) => {
    const a = Float64Array.from(xs);
    const k = k0 % a.length;
    const sorted = Float64Array.from(xs).sort();
    expect(selectInPlace(a, k)).toBe(sorted[k]);
    for (let i = 0; i < k; i++) expect(a[i]).toBeLessThanOrEqual(a[k] ?? Number.NaN);
    for (let i = k + 1; i < a.length; i++) expect(a[i]).toBeGreaterThanOrEqual(a[k] ?? Number.NaN);
  });

  test.prop([values, fc.double({ min: 0, max: 1, noNaN: true })], SEEDED)(
    'quantileOf equals the nearest-rank order statistic and leaves its input alone',
    (xs, q) => {
      const a = Float64Array.from(xs);
      const sorted = Float64Array.from(xs).sort();
      expect(quantileOf(a, q)).toBe(quantileSorted(sorted, q));
      expect(Array.from(a)).toEqual(xs);
    },
  );

  test.prop(
    [
      values,
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.double({ min: 0, max: 1, noNaN: true }),
    ],
    SEEDED,
  )('quantiles are monotone in q', (xs, q1, q2) => {
    const a = Float64Array.from(xs);
    expect(quantileOf(a, Math.min(q1, q2))).toBeLessThanOrEqual(quantileOf(a, Math.max(q1, q2)));
  });

  test('nearest rank: the 95% of 100 is the 95th; tiny q is the 1st; empty is NaN', () => {
    expect(nearestRank(0.95, 100)).toBe(95);
    expect(nearestRank(0.999, 1000)).toBe(999);
    expect(nearestRank(0, 10)).toBe(1);
    expect(quantileOf(new Float64Array(0), 0.5)).toBeNaN();
  });

  test('many equal values', () => {
    const a = new Float64Array(1000).fill(3);
    a[500] = 1;
    expect(selectInPlace(a, 0)).toBe(1);
    expect(selectInPlace(a, 999)).toBe(3);
  });
});
