import { defined } from '../test-fixtures';
import { describe, expect, it } from 'vitest';
import {
  nanoToMs,
  parseFilters,
  resolveRange,
  settleRange,
  SETTLED_LAG_MS,
  writeFilters,
} from './filters';

describe('URL filters', () => {
  it('round-trips a custom range and an operation through the URL, keeping other keys', () => {
    const base = new URLSearchParams('policy=hedge&delayMs=12');
    const url = writeFilters(base, {
      range: 'custom',
      from: 1_700_000_000_000,
      to: 1_700_000_600_000,
      leafService: 'leaf',
      leafOperation: 'GET /shard',
    });
    const back = parseFilters(url);
    expect(back).toEqual({
      range: 'custom',
      from: 1_700_000_000_000,
      to: 1_700_000_600_000,
      leafService: 'leaf',
      leafOperation: 'GET /shard',
    });
    expect(url.get('policy')).toBe('hedge');
    expect(url.get('delayMs')).toBe('12');
  });

  it('leaves the default range out of the URL and reads presets back', () => {
    expect(writeFilters(new URLSearchParams(), { range: 'all' }).toString()).toBe('');
    expect(parseFilters(new URLSearchParams('range=6h')).range).toBe('6h');
    expect(parseFilters(new URLSearchParams('range=bogus')).range).toBe('all');
  });

  it('accepts ISO-8601 times and ignores an inverted range', () => {
    const f = parseFilters(
      new URLSearchParams('from=2024-01-01T00:00:00Z&to=2024-01-01T01:00:00Z'),
    );
    expect(f.range).toBe('custom');
    expect(defined(f.to) - defined(f.from)).toBe(3_600_000);
    expect(parseFilters(new URLSearchParams('from=200&to=100')).range).toBe('all');
  });

  it('resolves presets against the given clock and "all" against the store', () => {
    const now = 10_000_000;
    expect(resolveRange({ range: '15m' }, now, null)).toEqual({ fromMs: now - 900_000, toMs: now });
    expect(resolveRange({ range: 'all' }, now, { oldestMs: 1000.4, newestMs: 2000.2 })).toEqual({
      fromMs: 1000,
      toMs: 2002,
    });
    expect(resolveRange({ range: 'all' }, now, null)).toBeNull();
  });

  it('ends analyses where the stored data does, only at the live edge of a receiving store', () => {
    const all = { fromMs: 1000, toMs: 600_001 };
    const newestMs = 600_000;
    const nowMs = 601_000;
    // 25 s behind the newest span and now: cut there.
    expect(settleRange(all, { range: 'all' }, { newestMs, settledMs: 575_000 }, nowMs)).toEqual({
      fromMs: 1000,
      toMs: 575_000,
      cut: true,
    });
    const hour = { fromMs: nowMs - 3_600_000, toMs: nowMs };
    expect(settleRange(hour, { range: '1h' }, { newestMs, settledMs: 575_000 }, nowMs).toMs).toBe(
      575_000,
    );
    // Nothing stored, stored past the newest span (data stamped in the past), too far before
    // now (a store loaded from the past whose chunks are still being stored, or a materializer
    // far behind), a custom range, or a range ending before it: unchanged.
    for (const [f, settledMs, now] of [
      [{ range: 'all' }, null, nowMs],
      [{ range: 'all' }, 700_000, nowMs],
      [{ range: 'all' }, 575_000, 575_000 + SETTLED_LAG_MS],
      [{ range: 'custom', from: 1000, to: 600_001 }, 575_000, nowMs],
    ] as const)
      expect(settleRange(all, f, { newestMs, settledMs }, now)).toEqual({ ...all, cut: false });
    const early = { fromMs: 1000, toMs: 500_000 };
    expect(settleRange(early, { range: 'all' }, { newestMs, settledMs: 575_000 }, nowMs)).toEqual({
      ...early,
      cut: false,
    });
  });

  it('converts 19-digit nanosecond strings without losing milliseconds', () => {
    expect(nanoToMs('1700000000123456789')).toBeCloseTo(1_700_000_000_123.4568, 3);
    expect(nanoToMs(null)).toBeNull();
    expect(nanoToMs('abc')).toBeNull();
  });
});
