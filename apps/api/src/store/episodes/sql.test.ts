import { describe, expect, it } from 'vitest';
import { liveEpisodeWindowsSql, storeCallBucketsSql, storedEpisodeWindowsSql } from './sql';

const scope = {
  fromNs: 1_700_000_000_000_000_000n,
  toNs: 1_700_000_600_000_000_000n,
  windowMs: 30_000,
  service: "storage'; DROP TABLE otel_traces; --",
};

describe('episode series SQL', () => {
  it('live windows: binds every value and keeps its shape', () => {
    const q = liveEpisodeWindowsSql(scope);
    expect(q.text).not.toContain('DROP TABLE');
    expect(Object.values(q.params)).toContain("storage'; DROP TABLE otel_traces; --");
    expect(Object.values(q.params)).toContain('30000000000');
    expect(q.text).toMatchSnapshot();
  });

  it('stored buckets: one row per series and 10 s bucket under the version', () => {
    const q = storeCallBucketsSql({ fromNs: scope.fromNs, toNs: scope.toNs }, 42n);
    expect(q.text).toMatch(/^\s*INSERT INTO tailscope_call_buckets/);
    expect(Object.values(q.params)).toContain('42');
    expect(Object.values(q.params)).toContain('10000000000');
    expect(q.text).toMatchSnapshot();
  });

  it('stored windows: buckets of the covered chunk versions merged per window', () => {
    const q = storedEpisodeWindowsSql(scope, {
      splitNs: scope.toNs,
      chunks: [['2833333', '7']],
    });
    expect(q.text).not.toContain('DROP TABLE');
    // 30 s windows are 3 buckets; the range in buckets.
    expect(Object.values(q.params)).toEqual(
      expect.arrayContaining(['3', '170000000', '170000060', ['2833333'], ['7']]),
    );
    expect(q.text).toMatchSnapshot();
  });
});
