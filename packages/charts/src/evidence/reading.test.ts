import { describe, expect, it } from 'vitest';
import { STEAL_READING } from '../fixtures';
import { layoutReading } from './reading';

describe('layoutReading', () => {
  it("marks the points at or above the rule's level and draws the three levels", () => {
    const l = layoutReading(STEAL_READING, 300);
    expect(l.points.map((p) => p.above)).toEqual([true, true, false, true, true]);
    expect(l.path.match(/M/g)).toHaveLength(2);
    // Higher values sit higher (smaller y): value above the level above the baseline.
    expect(l.valueY).toBeLessThan(l.levelY ?? -Infinity);
    expect(l.levelY ?? Infinity).toBeLessThan(l.baselineY ?? 0);
    expect(l.xLabels.map((x) => x.label)).toEqual(['05:16', '05:22']);
    expect(l.title).toBe(
      "system.cpu.time steal on h1: 25.4%, 1.5% on the other hosts; the rule's level 10%",
    );
  });

  it('draws no baseline when there is none, and nothing NaN for an empty series', () => {
    const l = layoutReading({ ...STEAL_READING, baseline: NaN, values: [] }, 200);
    expect(l.baselineY).toBeUndefined();
    expect(l.path).toBe('');
    expect(l.title).not.toContain('NaN');
    expect(Number.isFinite(l.levelY)).toBe(true);
  });

  it('draws no level and marks no point without a rule (a host cause against its peers)', () => {
    const l = layoutReading(
      { ...STEAL_READING, level: NaN, baselineLabel: 'on 9 other hosts' },
      300,
    );
    expect(l.levelY).toBeUndefined();
    expect(l.points.some((p) => p.above)).toBe(false);
    expect(l.points).toHaveLength(5);
    expect(l.title).toBe('system.cpu.time steal on h1: 25.4%, 1.5% on 9 other hosts');
    // A NaN level would make the scale's domain NaN and every y NaN.
    expect(l.points.every((p) => Number.isFinite(p.y))).toBe(true);
    expect(Number.isFinite(l.valueY)).toBe(true);
  });
});
