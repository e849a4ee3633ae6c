import { defined } from '../fixtures';
import { describe, expect, it } from 'vitest';
import { layoutDumbbell } from './layout';

const rows = [
  {
    key: 'a',
    label: 'frontend GET /search → index Search',
    leafP50: 10,
    leafP99: 50,
    allP99: 1000,
  },
  { key: 'b', label: 'api GET /user → cache Get', leafP50: 0.4, leafP99: 2, allP99: 4 },
];

describe('layoutDumbbell', () => {
  const l = layoutDumbbell(rows, 800);

  it('orders p50 < p99 < request p99 left to right on a log axis', () => {
    for (const r of l.rows) {
      expect(r.xLeafP50).toBeLessThan(r.xLeafP99);
      expect(r.xLeafP99).toBeLessThan(r.xAllP99);
    }
    const labels = l.ticks.map((t) => t.label);
    expect(labels).toContain('1 ms');
    expect(labels).toContain('1 s');
  });

  it('prints the request-to-one-leaf p99 ratio', () => {
    expect(l.rows.map((r) => r.ratio)).toEqual(['×20', '×2']);
  });

  it('names its points as Table 1 does: one leaf finishing, not call latency (issue 24)', () => {
    expect(l.legend.map((i) => i.label)).toEqual([
      'one leaf p50',
      'one leaf p99',
      'request (all leaves) p99',
    ]);
  });

  it('keeps zero latencies on the axis instead of at -Infinity', () => {
    const z = layoutDumbbell([{ key: 'z', label: 'z', leafP50: 0, leafP99: 1, allP99: 3 }], 500);
    expect(Number.isFinite(defined(z.rows[0]).xLeafP50)).toBe(true);
    expect(defined(z.rows[0]).xLeafP50).toBeGreaterThanOrEqual(z.f.left);
  });
});
