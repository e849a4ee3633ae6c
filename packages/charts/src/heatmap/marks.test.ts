import { describe, expect, it } from 'vitest';
import { layoutHeatmap, type HostMatrix } from './layout';
import { layoutHeatMarks } from './marks';

const m: HostMatrix = {
  hosts: ['b', 'a'],
  startMs: 1_000_000,
  windowMs: 10_000,
  windows: 10,
  values: new Float64Array(20).fill(5),
  calls: new Uint32Array(20).fill(10),
  statistic: 'p99',
};

describe('layoutHeatMarks', () => {
  const l = layoutHeatmap(m, 520);

  it('outlines a mark over its windows on its host row', () => {
    const [box] = layoutHeatMarks(l, m, [
      { host: 'b', fromMs: 1_020_000, toMs: 1_050_000, label: 'slow' },
    ]);
    expect(box).toBeDefined();
    // Row of 'b' is the second (natural name order), windows 2..5.
    expect(box?.y).toBeCloseTo(l.f.top + l.rowHeight, 1);
    expect(box?.x).toBeCloseTo(l.f.left + 2 * l.cellWidth, 1);
    expect(box?.w).toBeCloseTo(3 * l.cellWidth, 1);
    expect(box?.h).toBe(l.rowHeight);
  });

  it('clips to the matrix and drops marks on other hosts or outside', () => {
    const boxes = layoutHeatMarks(l, m, [
      { host: 'a', fromMs: 0, toMs: 1_010_000, label: '' },
      { host: 'zz', fromMs: 1_000_000, toMs: 1_010_000, label: '' },
      { host: 'a', fromMs: 2_000_000, toMs: 2_010_000, label: '' },
    ]);
    expect(boxes).toHaveLength(1);
    expect(boxes[0]?.x).toBeCloseTo(l.f.left, 1);
    expect(boxes[0]?.w).toBeCloseTo(l.cellWidth, 1);
  });
});
