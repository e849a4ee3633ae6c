import { describe, expect, it } from 'vitest';
import { mergeIntervals } from './incidents';

describe("the sampled traces' intervals", () => {
  it('merges touching intervals, in any order', () => {
    expect(
      mergeIntervals(
        [
          [10, 12],
          [1, 3],
          [3, 5],
          [11, 20],
        ],
        10,
      ),
    ).toEqual([
      [1, 5],
      [10, 20],
    ]);
  });

  it('joins across the smallest gaps down to the most asked: never less than the union', () => {
    const got = mergeIntervals(
      [
        [0, 1],
        [2, 3],
        [10, 11],
        [30, 31],
      ],
      2,
    );
    expect(got).toEqual([
      [0, 11],
      [30, 31],
    ]);
    expect(mergeIntervals([[5, 6]], 0)).toEqual([[5, 6]]);
    expect(mergeIntervals([], 4)).toEqual([]);
  });
});
