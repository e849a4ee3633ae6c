import { describe, expect, it } from 'vitest';
import { layoutWaterfall } from './layout';
import { FANOUT_TRACE_MS, fanoutTraceRows, defined } from '../fixtures';

describe('layoutWaterfall', () => {
  const rows = fanoutTraceRows;
  const l = layoutWaterfall(rows, FANOUT_TRACE_MS, 1000);

  it('maps time linearly: a bar twice as long is twice as wide', () => {
    const c0 = defined(l.bars.find((b) => b.id === 'c0'));
    const root = defined(l.bars.find((b) => b.id === 'root'));
    expect(root.w / c0.w).toBeCloseTo(64 / 8, 1);
    expect(root.x).toBeCloseTo(l.f.left, 6);
  });

  it('indents by depth, keeps tiny spans visible and labels units', () => {
    const root = defined(l.bars[0]);
    const call = defined(l.bars[1]);
    expect(call.labelX).toBeGreaterThan(root.labelX);
    const tiny = layoutWaterfall([{ ...defined(rows[0]), durationMs: 1e-6 }], 64, 1000);
    expect(defined(tiny.bars[0]).w).toBeGreaterThanOrEqual(1);
    expect(l.ticks.map((t) => t.label)).toContain('20 ms');
    expect(call.duration).toBe('8 ms');
  });

  it('nests the server span inside its call and describes host and mode', () => {
    const s = defined(l.bars.find((b) => b.straggler));
    expect(defined(s.inner).x).toBeGreaterThan(s.x);
    expect(defined(s.inner).x + defined(s.inner).w).toBeLessThan(s.x + s.w);
    expect(s.meta).toBe('storage-07 · contended');
  });
});
