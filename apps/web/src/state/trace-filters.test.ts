import { describe, expect, it } from 'vitest';
import { parseTraceFilters, tracesSearch, writeTraceFilters } from './trace-filters';

describe('trace search filters in the URL', () => {
  it('round-trips every filter and keeps other keys', () => {
    const f = {
      service: 'frontend',
      operation: 'HTTP GET /dispatch',
      minDurationMs: 500,
      maxDurationMs: 2000,
      error: true,
      order: 'slowest' as const,
    };
    const url = writeTraceFilters(new URLSearchParams('range=1h&x=1'), f);
    expect(url.get('range')).toBe('1h');
    expect(url.get('x')).toBe('1');
    expect(parseTraceFilters(url)).toEqual(f);
  });
  it('drops malformed values instead of sending them', () => {
    expect(
      parseTraceFilters(new URLSearchParams('minMs=-3&maxMs=abc&error=maybe&order=random')),
    ).toEqual({});
  });
  it('links keep the shared range and only that', () => {
    const s = tracesSearch(
      { service: 'kv', operation: 'get', minDurationMs: 12.5 },
      '?from=1&to=2&leafService=kv&by=host',
    );
    const p = new URLSearchParams(s);
    expect(Object.fromEntries(p)).toEqual({
      from: '1',
      to: '2',
      service: 'kv',
      operation: 'get',
      minMs: '12.5',
    });
  });
});
