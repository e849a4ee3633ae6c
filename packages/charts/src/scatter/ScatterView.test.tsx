import { describe, expect, it } from 'vitest';
import { ScatterView } from './ScatterView';
import { layoutScatter } from './layout';
import { matchGolden } from '../golden';

describe('ScatterView', () => {
  it('matches its golden SVG for three traces', () => {
    const layout = layoutScatter(
      [
        { key: 'a', tMs: 1_700_000_000_000, durationMs: 12, error: false },
        { key: 'b', tMs: 1_700_000_030_000, durationMs: 900, error: true },
        { key: 'c', tMs: 1_700_000_060_000, durationMs: 45, error: false },
      ],
      640,
      260,
    );
    const g = matchGolden(
      import.meta.url,
      'scatter-three',
      <ScatterView layout={layout} title="traces" />,
    );
    expect(g.actual).toBe(g.expected);
  });
});
