import { describe, expect, it } from 'vitest';
import { episodeWindowsSql } from './episodes';

describe('episodeWindowsSql', () => {
  it('binds every value and keeps its shape', () => {
    const q = episodeWindowsSql({
      fromNs: 1_700_000_000_000_000_000n,
      toNs: 1_700_000_600_000_000_000n,
      windowMs: 10_000,
      service: "storage'; DROP TABLE otel_traces; --",
    });
    expect(q.text).not.toContain('DROP TABLE');
    expect(Object.values(q.params)).toContain("storage'; DROP TABLE otel_traces; --");
    expect(Object.values(q.params)).toContain('10000000000');
    expect(q.text).toMatchSnapshot();
  });
});
