import { describe, expect, it } from 'vitest';
import { HeatmapAxesView } from './HeatmapAxesView';
import { layoutHeatmap } from './layout';
import { matchGolden } from '../golden';

describe('HeatmapAxesView', () => {
  it('matches its golden SVG for four hosts, one of them a cause', () => {
    const hosts = ['storage-10', 'storage-2', 'storage-1', 'storage-3'];
    const windows = 6;
    const values = Float64Array.from({ length: hosts.length * windows }, (_, i) =>
      i >= 6 && i < 12 && i % 6 > 2 ? 80 : 20 + (i % 5),
    );
    const layout = layoutHeatmap(
      {
        hosts,
        startMs: Date.UTC(2025, 0, 1),
        windowMs: 10_000,
        windows,
        values,
        calls: new Uint32Array(values.length).fill(50),
        statistic: 'p99',
      },
      600,
    );
    const g = matchGolden(
      import.meta.url,
      'heatmap-axes',
      <HeatmapAxesView
        layout={layout}
        title="heatmap"
        statistic="p99"
        gradientId="g"
        onHost={() => undefined}
        highlight={new Set(['storage-2'])}
      />,
    );
    expect(g.actual).toBe(g.expected);
    // Natural order: storage-2 before storage-10.
    expect(g.actual.indexOf('storage-2<')).toBeLessThan(g.actual.indexOf('storage-10<'));
  });
});
