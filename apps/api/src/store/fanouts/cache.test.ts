import { describe, expect, it } from 'vitest';
import { runs, slices } from './cache';

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

  it('builds a chunk bigger than the bound in equal time slices that tile it', () => {
    const range = { fromNs: 600n, toNs: 1200n };
    expect(slices(range, 900n, 1000n)).toEqual([range]);
    const cut = slices(range, 2500n, 1000n);
    expect(cut).toHaveLength(3);
    expect(cut[0]?.fromNs).toBe(600n);
    expect(cut[2]?.toNs).toBe(1200n);
    for (let i = 1; i < cut.length; i++) expect(cut[i]?.fromNs).toBe(cut[i - 1]?.toNs);
  });
});
