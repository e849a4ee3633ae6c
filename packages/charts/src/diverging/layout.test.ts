import { describe, expect, it } from 'vitest';
import { layoutDiverging } from './layout';

describe('layoutDiverging', () => {
  const rows = [
    { key: 'm', label: 'mysql SQL SELECT', typicalMs: 300, slowMs: 900, deltaMs: 600 },
    { key: 'r', label: 'redis GetDriver', typicalMs: 100, slowMs: 90, deltaMs: -10 },
  ];
  it('draws typical left and slow right of one centre, to one scale', () => {
    const l = layoutDiverging(rows, 700);
    const [m, r] = l.rows;
    expect(m && m.typical.x + m.typical.w).toBeCloseTo(l.centerX, 0);
    expect(m?.slow.x).toBe(l.centerX);
    expect(m && m.slow.w / m.typical.w).toBeCloseTo(3, 1);
    expect(r && r.slow.w < r.typical.w).toBe(true);
    expect(m?.delta).toBe('+600 ms');
    expect(r?.delta).toBe('−10 ms');
    expect(m && r && r.y > m.y).toBe(true);
  });
  it('prints a difference of float noise as no difference', () => {
    const l = layoutDiverging(
      [{ key: 'c', label: 'frontend HTTP GET', typicalMs: 0.04, slowMs: 0.04, deltaMs: -1e-14 }],
      400,
    );
    expect(l.rows[0]?.delta).toBe('0 ms');
  });
  it('never draws a negative width', () => {
    const l = layoutDiverging(
      [{ key: 'x', label: 'x', typicalMs: NaN, slowMs: -1, deltaMs: 0 }],
      400,
    );
    expect(l.rows[0]?.typical.w).toBe(0);
    expect(l.rows[0]?.slow.w).toBe(0);
  });
});
