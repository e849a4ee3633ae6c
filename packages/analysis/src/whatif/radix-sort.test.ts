import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../random';
import { sortedCopy } from './radix-sort';

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
