import { describe, expect, it } from 'vitest';
import {
  liveSpanSplitSql,
  storeSpanSplitSql,
  storedSpanSplitSql,
  storedSplitMarksSql,
} from './split-sql';

const q = {
  fromNs: 1_700_000_000_000_000_000n,
  toNs: 1_700_000_600_000_000_000n,
  windowNs: 30_000_000_000n,
  services: ["db'; DROP TABLE otel_traces; --"],
  hosts: ['db-1'],
  maxRows: 50_000,
};
const cov = { splitNs: q.toNs, chunks: [['2833333', '7']] as [string, string][] };

describe('span split SQL', () => {
  it('live: binds every value, looks for the client around its server', () => {
    const s = liveSpanSplitSql(q);
    expect(s.text).not.toContain('DROP TABLE');
    expect(Object.values(s.params)).toContainEqual(["db'; DROP TABLE otel_traces; --"]);
    // The client read reaches 60 s either side of the servers' range.
    expect(Object.values(s.params)).toEqual(
      expect.arrayContaining(['1699999940000000000', '1700000660000000000', '60000000000']),
    );
    expect(s.text).toMatchSnapshot();
  });

  it('stored: per 10 s bucket under the version, one mark per bucket', () => {
    const s = storeSpanSplitSql({ fromNs: q.fromNs, toNs: q.toNs }, 42n);
    expect(s.text).toMatch(/^\s*INSERT INTO tailscope_span_split_buckets/);
    expect(Object.values(s.params)).toEqual(
      expect.arrayContaining(['42', '170000000', '170000060']),
    );
    expect(s.text).toMatchSnapshot();
  });

  it('read back: the covered versions, summed per window; the marks counted', () => {
    const s = storedSpanSplitSql(q, cov);
    expect(s.text).not.toContain('DROP TABLE');
    expect(Object.values(s.params)).toEqual(expect.arrayContaining(['3', ['2833333'], ['7']]));
    expect(s.text).toMatchSnapshot();
    expect(storedSplitMarksSql(q, cov).text).toMatch(/calls = 0/);
  });
});
