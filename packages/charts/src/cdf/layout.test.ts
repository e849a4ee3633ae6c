import { describe, expect, it } from 'vitest';
import { layoutCdf } from './layout';
import { fanoutCurves } from '../fixtures';

describe('layoutCdf', () => {
  const curves = fanoutCurves(2000, 100, 7);
  const series = [
    { key: 'one', label: 'one leaf', tone: 'base' as const, points: curves.oneLeaf },
    { key: 'all', label: 'all leaves', tone: 'accent' as const, points: curves.allLeaves },
  ];
  const l = layoutCdf(series, { width: 600, height: 300 }, [{ key: 't', ms: 1000, label: 'p99' }]);

  it('spans the data on a log x axis with ticks labelled in ms and s', () => {
    const labels = l.xTicks.map((t) => t.label);
    expect(labels).toContain('10 ms');
    expect(labels).toContain('1 s');
    for (const t of l.xTicks) {
      expect(t.pos).toBeGreaterThanOrEqual(l.f.left - 0.01);
      expect(t.pos).toBeLessThanOrEqual(l.f.right + 0.01);
    }
    // Log axis: equal ratios get equal distances.
    const at = (label: string) => l.xTicks.find((t) => t.label === label)?.pos ?? NaN;
    expect(at('100 ms') - at('10 ms')).toBeCloseTo(at('1 s') - at('100 ms'), 6);
  });

  it('puts percentiles on the nines scale, p99 above p90 by the same step as p90 above p50-ish', () => {
    const y = (label: string) => l.yTicks.find((t) => t.label === label)?.pos ?? NaN;
    expect(y('p90') - y('p99')).toBeCloseTo(y('p99') - y('p99.9'), 6);
    expect(l.yTicks[0]?.label).toBe('p50');
    expect(y('p50')).toBeLessThan(l.f.bottom);
  });

  it('draws the all-leaves curve to the right of the one-leaf curve at the median', () => {
    // Most of the 2,000 fan-outs of width 100 contain a ~1 s call; single calls sit near 10 ms.
    const mid = (pts: readonly { p: number; ms: number }[]) =>
      pts.find((p) => p.p >= 0.5)?.ms ?? NaN;
    expect(mid(curves.allLeaves)).toBeGreaterThan(500);
    expect(mid(curves.oneLeaf)).toBeLessThan(20);
    expect(l.lines).toHaveLength(2);
    for (const line of l.lines) expect(line.d).toMatch(/^M[\d.]+,[\d.]+L/);
  });

  it('places a threshold rule and survives empty input', () => {
    expect(l.rules[0]?.x).toBeGreaterThan(l.f.left);
    const empty = layoutCdf([], { width: 200, height: 100 });
    expect(empty.lines).toHaveLength(0);
    expect(empty.xTicks.length).toBeGreaterThan(0);
  });
});

describe('layoutCdf with interval estimates', () => {
  it('draws a whisker per estimate, at its percentile, spanning low..high', () => {
    const l = layoutCdf(
      [
        {
          key: 'w',
          label: 'what-if',
          tone: 'accent',
          dashed: true,
          points: [
            { p: 0.5, ms: 10 },
            { p: 0.99, ms: 50 },
          ],
          intervals: [
            { p: 0.5, ms: 10, low: 9, high: 11 },
            { p: 0.99, ms: 50, low: 40, high: 70 },
          ],
        },
      ],
      { width: 500, height: 300 },
    );
    expect(l.whiskers).toHaveLength(2);
    const [a, b] = l.whiskers;
    expect(a && a.x1 < a.x && a.x < a.x2).toBe(true);
    expect(b && a && b.y < a.y).toBe(true);
  });
});
