import { describe, expect, it } from 'vitest';
import { layoutAmplification } from './layout';
import { independentCurve, defined } from '../fixtures';

describe('layoutAmplification', () => {
  const size = { width: 500, height: 280 };
  const l = layoutAmplification(independentCurve, { thresholdMs: 980, widthP50: 100 }, size);

  it('uses a log width axis when widths span three decades and labels whole widths', () => {
    expect(l.xTitle).toContain('log scale');
    expect(l.xTicks.map((t) => t.label)).toEqual(
      expect.arrayContaining(['1', '10', '100', '1,000']),
    );
  });

  it('draws observed dots only where data exists, below the prediction when slightly under it', () => {
    expect(l.observed.map((o) => o.width)).toEqual([10, 20, 50, 100]);
    for (const o of l.observed) expect(o.value).toBeLessThan(o.predicted);
    // SVG y grows downward: a lower probability sits lower (larger y) than a higher one.
    const at100 = l.observed.find((o) => o.width === 100);
    const at10 = l.observed.find((o) => o.width === 10);
    expect(defined(at100).y).toBeLessThan(defined(at10).y);
  });

  it('marks the median width and names the threshold with its unit', () => {
    expect(l.widthRule?.label).toBe('median width 100');
    expect(l.yTitle).toBe('P(all leaves > 980 ms)');
    expect(l.yTicks.at(-1)?.label).toMatch(/%$/);
  });

  it('falls back to a linear axis for narrow width ranges and copes with no curve', () => {
    const narrow = layoutAmplification(
      [
        { width: 2, predicted: 0.02 },
        { width: 8, predicted: 0.08, observed: 0.07 },
      ],
      { thresholdMs: 50 },
      size,
    );
    expect(narrow.xTitle).not.toContain('log');
    expect(narrow.widthRule).toBeNull();
    const none = layoutAmplification([], { thresholdMs: 1 }, size);
    expect(none.observed).toEqual([]);
    expect(none.predicted).toBe('');
  });
});
