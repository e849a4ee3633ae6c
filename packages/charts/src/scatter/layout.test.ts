import { describe, expect, it } from 'vitest';
import { layoutScatter } from './layout';

describe('layoutScatter', () => {
  const points = [
    { key: 'a', tMs: 1_700_000_000_000, durationMs: 10, error: false },
    { key: 'b', tMs: 1_700_000_060_000, durationMs: 1000, error: true },
    { key: 'c', tMs: 1_700_000_030_000, durationMs: 0, error: false },
  ];
  it('puts later traces right and slower ones higher, inside the frame', () => {
    const l = layoutScatter(points, 600, 300);
    const [a, b, c] = l.dots;
    expect(a && b && b.cx > a.cx && b.cy < a.cy).toBe(true);
    for (const d of l.dots) {
      expect(d.cx).toBeGreaterThanOrEqual(l.f.left);
      expect(d.cx).toBeLessThanOrEqual(l.f.right);
      expect(d.cy).toBeGreaterThanOrEqual(l.f.top);
      expect(d.cy).toBeLessThanOrEqual(l.f.bottom);
    }
    // A zero duration sits at the floor of the log axis, not off the chart.
    expect(c?.cy).toBeGreaterThanOrEqual(a?.cy ?? 0);
    expect(b?.error).toBe(true);
    expect(l.yTicks.length).toBeGreaterThan(1);
  });
  it('copes with no points and one instant', () => {
    expect(layoutScatter([], 400, 200).dots).toEqual([]);
    const one = layoutScatter([points[0] as (typeof points)[0]], 400, 200);
    expect(Number.isFinite(one.dots[0]?.cx)).toBe(true);
  });
});
