import { defined } from '../fixtures';
import { describe, expect, it } from 'vitest';
import { layoutPercentileBars } from './layout';

const baseline = { p50: 12, p90: 40, p99: 1000, p999: 1200 };
const whatIf = {
  p50: { value: 12, low: 11.5, high: 12.5 },
  p90: { value: 30, low: 28, high: 33 },
  p99: { value: 60, low: 52, high: 75 },
  p999: { value: 1100, low: 900, high: 1300 },
};

describe('layoutPercentileBars', () => {
  const l = layoutPercentileBars(baseline, whatIf, 640);

  it('has one row per percentile, top to bottom', () => {
    expect(l.rows.map((r) => r.label)).toEqual(['p50', 'p90', 'p99', 'p99.9']);
    expect(defined(l.rows[1]).y).toBeGreaterThan(defined(l.rows[0]).y);
  });

  it('scales each row on its own so a 1 s p99 does not flatten a 12 ms p50', () => {
    const p50 = defined(l.rows[0]);
    expect(p50.base.x1 - l.x0).toBeGreaterThan((l.f.right - l.x0) * 0.9);
  });

  it('calls a change better only when the whole interval is below baseline', () => {
    const byKey = Object.fromEntries(l.rows.map((r) => [r.key, r]));
    expect(byKey.p99?.better).toBe(true);
    expect(byKey.p99?.change).toBe('−94%');
    expect(byKey.p999?.better).toBe(false);
    expect(byKey.p999?.worse).toBe(false);
    expect(byKey.p50?.change).toBe('+0%');
    expect(byKey.p99?.what.lowX).toBeLessThan(defined(byKey.p99).what.highX);
  });

  it('labels values with units', () => {
    expect(l.rows[2]?.base.label).toBe('1 s');
    expect(l.rows[2]?.what.label).toBe('60 ms');
  });
});
