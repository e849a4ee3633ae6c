import { describe, expect, it } from 'vitest';
import {
  EvidenceSeriesBuilder,
  evidenceRows,
  evidenceSeries,
  seriesCount,
  type EvidenceRowOf,
} from './evidence-series';

const row = (host: string, signal: string, window: number, value: number): EvidenceRowOf => ({
  host,
  signal,
  metric: `${signal}.metric`,
  window,
  value,
});

describe('evidence series', () => {
  const rows = [
    row('a', 'gc-pause', 1, 0.5),
    row('a', 'gc-pause', 2, 0.25),
    row('a', 'throttling', 2, 0.1),
    row('b', 'gc-pause', 7, 3),
  ];

  it('groups consecutive rows of one host, signal and metric, and gives them back', () => {
    const s = evidenceSeries(rows);
    expect(seriesCount(s)).toBe(3);
    expect([...s.start]).toEqual([0, 2, 3, 4]);
    expect(s.host).toEqual(['a', 'a', 'b']);
    expect([...s.window]).toEqual([1, 2, 2, 7]);
    expect(evidenceRows(s)).toEqual(rows);
    expect(evidenceRows(s, (i) => s.host[i] === 'b')).toEqual([rows[3]]);
  });

  it('grows past its capacity and can go on after done()', () => {
    const b = new EvidenceSeriesBuilder(1);
    const windows = Float64Array.from({ length: 100 }, (_, i) => i);
    b.push(
      'h',
      'network',
      'm',
      windows,
      windows.map((w) => w * 2),
    );
    const first = b.done();
    b.push('h', 'gc-pause', 'm', [5], [1]);
    b.push('h', 'gc-pause', 'empty', [], []);
    const second = b.done();
    expect(seriesCount(first)).toBe(1);
    expect(first.value).toHaveLength(100);
    expect(seriesCount(second)).toBe(2);
    expect(second.value[99]).toBe(198);
    expect([...second.start]).toEqual([0, 100, 101]);
  });
});
