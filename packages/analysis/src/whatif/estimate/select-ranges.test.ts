import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { mergeRanges, selectRanges, sortedAtRanges } from './select-ranges';
import { bootstrapPercentiles, bootstrapQuantiles } from './bootstrap';
import { sortedCopy } from './radix-sort';
import { SeededRandom } from '../../random';

// Fixed seed: the same cases every run.
const SEEDED = { seed: 20261124, numRuns: 80 };

/** Values as latencies come (spread or bunched), with repeats and a few negatives. */
const valuesArb = fc
  .tuple(
    fc.array(fc.double({ min: -50, max: 5000, noNaN: true, noDefaultInfinity: true }), {
      minLength: 1,
      maxLength: 400,
    }),
    fc.integer({ min: 0, max: 3 }),
  )
  .map(([xs, repeat]) => {
    const all = [...xs];
    for (let r = 0; r < repeat; r++) all.push(...xs.slice(0, 50)); // ties
    return Float64Array.from(all, (x) => (x === 0 ? 0 : x)); // no -0: a sort orders it first
  });

/** Ascending disjoint ranges inside 0..n-1 from arbitrary cut points. */
const rangesOf = (n: number, cuts: number[]): [number, number][] => {
  const points = [...new Set(cuts.map((c) => Math.floor(c * n)).filter((p) => p < n))].sort(
    (a, b) => a - b,
  );
  const out: [number, number][] = [];
  for (let i = 0; i + 1 < points.length; i += 2) out.push([points[i] ?? 0, points[i + 1] ?? 0]);
  return out;
};

describe('selecting ranges of the sorted order', () => {
  test.prop(
    [valuesArb, fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 10 })],
    SEEDED,
  )('puts at every position of a range the value a sort puts there', (values, cuts) => {
    const sorted = Float64Array.from(values).sort();
    const ranges = rangesOf(values.length, cuts);
    const a = Float64Array.from(values);
    selectRanges(a, ranges);
    const b = sortedAtRanges(values, ranges);
    for (const [lo, hi] of ranges)
      for (let p = lo; p <= hi; p++) {
        expect(a[p]).toBe(sorted[p]);
        expect(b[p]).toBe(sorted[p]);
      }
    // A permutation: nothing lost or duplicated.
    expect(Float64Array.from(a).sort()).toEqual(sorted);
  });

  test('bunched values (one order-key digit holds most of them) and the whole array', () => {
    const rng = new SeededRandom(4);
    const values = Float64Array.from({ length: 20_000 }, () => 20 + Math.exp(2 * rng.normal()));
    const sorted = sortedCopy(values);
    const ranges: [number, number][] = [
      [0, 3],
      [9_000, 11_000],
      [17_990, 18_010],
      [19_990, 19_999],
    ];
    const b = sortedAtRanges(values, ranges);
    for (const [lo, hi] of ranges) for (let p = lo; p <= hi; p++) expect(b[p]).toBe(sorted[p]);
    const all = Float64Array.from(values);
    selectRanges(all, [[0, values.length - 1]]);
    expect(all).toEqual(sorted);
  });

  test('merges overlapping and touching ranges, and refuses unordered ones', () => {
    expect(
      mergeRanges([
        [10, 12],
        [0, 2],
        [3, 4],
        [11, 20],
        [30, 30],
      ]),
    ).toEqual([
      [0, 4],
      [10, 20],
      [30, 30],
    ]);
    expect(() => {
      selectRanges(Float64Array.of(1, 2, 3), [
        [1, 2],
        [0, 0],
      ]);
    }).toThrow(RangeError);
  });
});

describe('the bootstrap selecting instead of sorting', () => {
  test.prop(
    [fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 4096, max: 30_000 }), fc.boolean()],
    { seed: 20261124, numRuns: 12 },
  )('answers as from a sorted copy, bit for bit', (seed, n, bunched) => {
    const rng = new SeededRandom(seed);
    const values = Float64Array.from({ length: n }, () =>
      bunched ? 20 + Math.exp(2 * rng.normal()) : 30 * Math.exp(0.6 * rng.normal()),
    );
    for (const [samples, resample] of [
      [200, n],
      [2000, Math.ceil(n / 4)],
    ] as const) {
      const picked = bootstrapPercentiles(values, new SeededRandom(seed), samples, resample);
      const sorted = bootstrapPercentiles(
        values,
        new SeededRandom(seed),
        samples,
        resample,
        sortedCopy(values),
      );
      expect(picked).toEqual(sorted);
    }
    const qs = [0, 0.25, 0.5, 0.75, 1];
    expect(bootstrapQuantiles(values, qs, new SeededRandom(seed), 300)).toEqual(
      bootstrapQuantiles(values, qs, new SeededRandom(seed), 300, n, sortedCopy(values)),
    );
  });
});
