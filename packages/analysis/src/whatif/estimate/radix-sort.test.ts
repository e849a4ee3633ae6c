import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../random';
import { bucketOrder, sortedCopy, sortedOrder } from './radix-sort';

describe('sortedCopy', () => {
  it('gives the built-in sort bit for bit (ties, -0 and 0, infinities, tiny and huge values)', () => {
    const rng = new SeededRandom(7);
    for (const n of [0, 5, 40_000, 100_000]) {
      const v = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const k = rng.below(10);
        v[i] =
          k === 0
            ? -0
            : k === 1
              ? 0
              : k === 2
                ? Infinity * (rng.below(2) ? 1 : -1)
                : k === 3
                  ? rng.below(50) // ties
                  : (rng.float() - 0.3) * 10 ** (rng.below(40) - 20);
      }
      const want = Float64Array.from(v).sort();
      const got = sortedCopy(v);
      expect(got.length).toBe(n);
      for (let i = 0; i < n; i++) expect(Object.is(got[i], want[i]), `at ${i}`).toBe(true);
    }
  });

  it('leaves its input alone', () => {
    const v = Float64Array.from({ length: 50_000 }, (_, i) => (i * 7919) % 1000);
    const copy = Float64Array.from(v);
    sortedCopy(v);
    expect(v).toEqual(copy);
  });
});

describe('sortedOrder', () => {
  const byComparison = (v: Float64Array): Uint32Array => {
    const o = Uint32Array.from({ length: v.length }, (_, i) => i);
    return o.sort((a, b) => (v[a] ?? NaN) - (v[b] ?? NaN) || a - b);
  };

  it('orders indexes as the comparison sort does (ties by index, -0 as 0, infinities)', () => {
    const rng = new SeededRandom(11);
    for (const n of [0, 7, 40_000, 100_000]) {
      const v = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const k = rng.below(10);
        v[i] =
          k === 0
            ? -0
            : k === 1
              ? 0
              : k === 2
                ? Infinity * (rng.below(2) ? 1 : -1)
                : k === 3
                  ? rng.below(50) - 25 // ties, negative ones too
                  : (rng.float() - 0.3) * 10 ** (rng.below(40) - 20);
      }
      const copy = Float64Array.from(v);
      expect(sortedOrder(v)).toEqual(byComparison(v));
      expect(v).toEqual(copy);
    }
  });

  it('orders epoch-ms starts that share their high digits (passes skipped)', () => {
    const rng = new SeededRandom(3);
    const v = Float64Array.from({ length: 70_000 }, (_, i) => 1.7e12 + i * 0.25 + 40 * rng.float());
    expect(sortedOrder(v)).toEqual(byComparison(v));
  });

  it('gives the comparison sort its own answer when values hold NaN', () => {
    const v = Float64Array.from({ length: 40_000 }, (_, i) =>
      i % 97 === 0 ? NaN : (i * 31) % 500,
    );
    expect(sortedOrder(v)).toEqual(byComparison(v));
  });
});

describe('bucketOrder', () => {
  const byComparison = (v: Float64Array): Uint32Array => {
    const o = Uint32Array.from({ length: v.length }, (_, i) => i);
    return o.sort((a, b) => (v[a] ?? NaN) - (v[b] ?? NaN) || a - b);
  };

  it('orders spread values as the comparison sort does (ties, -0 and 0, negatives)', () => {
    const rng = new SeededRandom(12);
    const v = Float64Array.from({ length: 50_000 }, () => {
      const k = rng.below(8);
      return k === 0 ? -0 : k === 1 ? 0 : k === 2 ? rng.below(30) - 10 : 40 * rng.float() - 10;
    });
    expect(bucketOrder(v)).toEqual(byComparison(v));
  });

  it('gives up on crowded values, infinities and NaN (the radix sort takes them)', () => {
    // One outlier squeezes everything else into the first bucket, in reverse order.
    const crowded = Float64Array.from({ length: 40_000 }, (_, i) => (i === 0 ? 1e9 : -i));
    expect(bucketOrder(crowded)).toBeUndefined();
    expect(sortedOrder(crowded)).toEqual(byComparison(crowded));
    expect(bucketOrder(Float64Array.of(1, Infinity, 2))).toBeUndefined();
    expect(bucketOrder(Float64Array.of(1, NaN, 2))).toBeUndefined();
    expect(bucketOrder(Float64Array.of(5e-324, 0, 5e-324))).toBeUndefined();
    expect(bucketOrder(Float64Array.of(3, 3, 3))).toEqual(Uint32Array.of(0, 1, 2));
  });
});
