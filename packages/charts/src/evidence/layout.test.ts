import { describe, expect, it } from 'vitest';
import { CPU_SERIES } from '../fixtures';
import { layoutEvidence } from './layout';

describe('layoutEvidence', () => {
  it('breaks the line at a window with no point and shades the episode', () => {
    const l = layoutEvidence(CPU_SERIES, 300);
    expect(l.points).toHaveLength(5);
    expect(l.path.match(/M/g)).toHaveLength(2);
    expect(l.band.x).toBeCloseTo(l.f.left + (4 / 6) * l.f.innerWidth, 1);
    expect(l.band.x + l.band.width).toBeCloseTo(l.f.right, 1);
    // Higher values sit higher (smaller y).
    expect(l.valueY).toBeLessThan(l.baselineY);
    expect(l.xLabels.map((x) => x.label)).toEqual(['05:16', '05:22']);
    expect(l.title).toBe('k8s.pod.cpu_limit_utilization: 97.5% in the episode, 12% before');
  });

  it('draws an all-zero or empty series without NaN', () => {
    const l = layoutEvidence({ ...CPU_SERIES, values: [0, 0, null], value: 0, baseline: 0 }, 200);
    expect(l.path).not.toContain('NaN');
    expect(Number.isFinite(l.valueY)).toBe(true);
    const empty = layoutEvidence({ ...CPU_SERIES, values: [] }, 200);
    expect(empty.path).toBe('');
  });
});
