import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { latencyQuantile, latencyQuantileKept } from './latency-quantile';
import { quantileUnsorted } from '../../quantile';

describe('latencyQuantile', () => {
  test.prop(
    [
      fc.array(
        fc.oneof(fc.double({ min: 0, max: 1e9, noNaN: true }), fc.constantFrom(0, 1, 5, 1e-9)),
        {
          minLength: 1,
          maxLength: 400,
        },
      ),
      fc.double({ min: 0, max: 1, noNaN: true }),
    ],
    { seed: 77, numRuns: 300 },
  )('equals the type-7 quantile of the package', (xs, q) => {
    const a = Float64Array.from(xs);
    expect(latencyQuantile(a, q)).toBe(quantileUnsorted(a, q));
    expect(Array.from(a)).toEqual(xs);
  });

  test('empty is NaN', () => {
    expect(latencyQuantile(new Float64Array(0), 0.5)).toBeNaN();
  });
});

describe('latencyQuantileKept', () => {
  test.prop(
    [
      fc.array(fc.double({ min: 0, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 300 }),
      fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 6 }),
    ],
    { seed: 78, numRuns: 200 },
  )('answers as latencyQuantile, asked again and after the column changes', (xs, qs) => {
    const a = Float64Array.from(xs);
    for (const q of [...qs, ...qs]) expect(latencyQuantileKept(a, q)).toBe(latencyQuantile(a, q));
    a[0] = (a[0] ?? 0) + 1; // rewritten in place: the kept copy must not answer
    for (const q of [...qs, ...qs]) expect(latencyQuantileKept(a, q)).toBe(latencyQuantile(a, q));
  });
});
