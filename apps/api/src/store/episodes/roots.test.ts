import { describe, expect, it } from 'vitest';
import { rootWindowsSql } from './roots';

describe('request root series SQL', () => {
  it('binds every value, reads the roots through the primary key, and keeps its shape', () => {
    const q = rootWindowsSql({
      fromNs: 1_700_000_000_000_000_000n,
      toNs: 1_700_000_600_000_000_000n,
      windowMs: 10_000,
      roots: [
        { service: 'frontend', operation: "GET /'; DROP TABLE otel_traces; --" },
        { service: 'frontend', operation: 'GET /home' },
      ],
    });
    expect(q.text).not.toContain('DROP TABLE');
    const params = Object.values(q.params);
    expect(params).toContainEqual(['frontend']);
    expect(params).toContainEqual(["GET /'; DROP TABLE otel_traces; --", 'GET /home']);
    expect(params).toContain('10000000000');
    // ServiceName and SpanName lead the table's ORDER BY: only those roots' granules are read.
    expect(q.text).toMatch(/WHERE ServiceName IN \{p\d+:Array\(String\)\}\s+AND SpanName IN/);
    expect(q.text).toMatchSnapshot();
  });
});
