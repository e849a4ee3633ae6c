import { describe, expect, it } from 'vitest';
import { runs } from './fanouts-cache';

describe('runs of stale chunks for one detection query', () => {
  it('groups consecutive chunks, at most 36 a run', () => {
    const ids = Array.from({ length: 40 }, (_, i) => BigInt(i));
    expect(runs([...ids, 50n, 51n]).map((r) => r.length)).toEqual([36, 4, 2]);
  });

  it('cuts a run before it reads more spans than the bound, a big chunk alone', () => {
    const spans = new Map([
      [1n, 600n],
      [2n, 600n],
      [3n, 2000n],
      [4n, 100n],
    ]);
    expect(runs([1n, 2n, 3n, 4n], spans, 1000n)).toEqual([[1n], [2n], [3n], [4n]]);
    expect(runs([1n, 2n, 3n, 4n], spans, 1200n)).toEqual([[1n, 2n], [3n], [4n]]);
  });
});
