import { describe, expect, it } from 'vitest';
import { cellAt, layoutHeatmap, type HostMatrix } from './layout';
import { drawHeatmap, type HeatmapContext } from './draw';
import { defined, seeded } from '../fixtures';

/** 24 hosts x 30 one-minute windows; host storage-07 is 4x slower in windows 9..17. */
function sickHostMatrix(): HostMatrix {
  const hosts = Array.from({ length: 24 }, (_, i) => `storage-${String(i + 1).padStart(2, '0')}`);
  const shuffled = [...hosts].reverse();
  const windows = 30;
  const r = seeded(11);
  const values = new Float64Array(hosts.length * windows);
  const calls = new Uint32Array(hosts.length * windows).fill(100);
  shuffled.forEach((h, i) => {
    for (let w = 0; w < windows; w++) {
      const sick = h === 'storage-07' && w >= 9 && w < 18;
      values[i * windows + w] = (sick ? 4 : 1) * (20 + r() * 4);
    }
  });
  values[0] = NaN; // storage-24 had no calls in its first window
  return {
    hosts: shuffled,
    startMs: Date.UTC(2025, 0, 1),
    windowMs: 60_000,
    windows,
    values,
    calls,
    statistic: 'p99',
  };
}

describe('layoutHeatmap', () => {
  const m = sickHostMatrix();
  const l = layoutHeatmap(m, 900);

  it('orders hosts by name, naturally, whatever order they came in', () => {
    expect(l.rows[0]?.host).toBe('storage-01');
    expect(l.rows[6]?.host).toBe('storage-07');
    expect(l.rows.at(-1)?.host).toBe('storage-24');
  });

  it('colours the sick episode hot and ordinary windows near the pale end', () => {
    const sick7 = m.hosts.indexOf('storage-07');
    const hot = l.cells.filter((c) => c.host === sick7 && c.window >= 9 && c.window < 18);
    const cold = l.cells.filter((c) => c.host !== sick7);
    expect(hot).toHaveLength(9);
    for (const c of hot) expect(c.t).toBeGreaterThan(0.85);
    for (const c of cold) expect(c.t).toBeLessThan(0.2);
    expect(l.hi / l.lo).toBeGreaterThan(3.5);
  });

  it('leaves windows without calls empty and finds the cell under a point', () => {
    expect(l.cells).toHaveLength(24 * 30 - 1);
    const row7 = defined(l.rows.find((r) => r.host === 'storage-07'));
    const hit = cellAt(l, m, l.f.left + l.cellWidth * 10.5, row7.y);
    expect(hit).toEqual({
      host: 'storage-07',
      startMs: m.startMs + 600_000,
      endMs: m.startMs + 660_000,
    });
    expect(cellAt(l, m, 5, row7.y)).toBeUndefined();
  });

  it('labels time in UTC and the legend in ms', () => {
    expect(l.timeTicks[0]?.label).toMatch(/^\d\d:\d\d:\d\d$/);
    expect(l.legend.ticks.map((t) => t.label)[0]).toMatch(/ms$/);
    expect(l.xTitle).toBe('time (UTC), 1 min windows');
  });
});

describe('drawHeatmap', () => {
  it('fills every cell once, grouped by colour step, after clearing at the device pixel ratio', () => {
    const m = sickHostMatrix();
    const l = layoutHeatmap(m, 600);
    const log: string[] = [];
    let fills = 0;
    const ctx: HeatmapContext = {
      fillStyle: '',
      setTransform: (a) => log.push(`transform ${a}`),
      clearRect: () => log.push('clear'),
      fillRect: () => {
        fills++;
      },
    };
    const styles: string[] = [];
    drawHeatmap(
      ctx,
      l,
      (t) => {
        const s = `t${t.toFixed(3)}`;
        styles.push(s);
        return s;
      },
      2,
    );
    expect(log.slice(0, 2)).toEqual(['transform 2', 'clear']);
    expect(fills).toBe(l.cells.length);
    expect(new Set(styles).size).toBe(styles.length);
    expect(styles[0]).toBe('t0.000');
  });
});
