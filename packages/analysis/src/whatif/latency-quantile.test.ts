import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { latencyQuantile } from './latency-quantile';
import { quantileUnsorted } from '../quantile';

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
