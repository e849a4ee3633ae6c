import { describe, expect, it } from 'vitest';
import { layoutForest } from './layout';
import { sickHostStragglers, defined } from '../fixtures';

describe('layoutForest', () => {
  const l = layoutForest(sickHostStragglers, 900);

  it('gives each row its own band, in the order given, and grows with the row count', () => {
    expect(l.rows.map((r) => r.value)).toEqual([
      'leaf-07',
      'contended',
      'compaction',
      'leaf-03',
      'blue',
    ]);
    const ys = l.rows.map((r) => r.y);
    for (let i = 1; i < ys.length; i++)
      expect(defined(ys[i]) - defined(ys[i - 1])).toBeCloseTo(l.rowHeight, 6);
    expect(layoutForest(sickHostStragglers.slice(0, 2), 900).f.height).toBeLessThan(l.f.height);
  });

  it('puts ratios above 1 right of the no-effect line and protective ones left of it', () => {
    const sick = defined(l.rows[0]);
    const healthy = defined(l.rows[3]);
    expect(sick.x).toBeGreaterThan(l.oneX);
    expect(sick.x1).toBeLessThan(sick.x);
    expect(sick.x2).toBeGreaterThan(sick.x);
    expect(healthy.x).toBeLessThan(l.oneX);
    // The decoy's interval crosses 1.
    const decoy = defined(l.rows[4]);
    expect(decoy.x1).toBeLessThan(l.oneX);
    expect(decoy.x2).toBeGreaterThan(l.oneX);
  });

  it('marks causes, formats the estimate and names dimensions for people', () => {
    expect(l.rows.filter((r) => r.cause).map((r) => r.value)).toEqual([
      'leaf-07',
      'contended',
      'compaction',
    ]);
    expect(l.rows[0]?.estimate).toBe('×22.4 [18.1–27.6]');
    expect(l.rows[0]?.detail).toBe('q < 1e-6');
    expect(l.rows[2]?.detail).toBe('q < 0.001');
    expect(l.rows[1]?.label).toBe('sharing mode: contended');
    expect(l.rows[4]?.label).toBe('deploy.color: blue');
  });

  it('clips an unbounded interval to the axis and flags it open', () => {
    const [first] = sickHostStragglers;
    const inf = layoutForest([{ ...defined(first), riskRatioHigh: Infinity }], 900);
    expect(inf.rows[0]?.openHigh).toBe(true);
    expect(inf.rows[0]?.x2).toBeLessThanOrEqual(inf.f.right);
    expect(inf.rows[0]?.estimate).toContain('∞');
  });
});
