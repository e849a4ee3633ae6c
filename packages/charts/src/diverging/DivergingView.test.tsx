import { describe, expect, it } from 'vitest';
import { DivergingView } from './DivergingView';
import { layoutDiverging } from './layout';
import { matchGolden } from '../golden';

describe('DivergingView', () => {
  it('matches its golden SVG for a HotROD-like critical path', () => {
    const layout = layoutDiverging(
      [
        { key: 'm', label: 'mysql SQL SELECT', typicalMs: 450, slowMs: 880, deltaMs: 430 },
        { key: 'f', label: 'frontend HTTP GET /dispatch', typicalMs: 40, slowMs: 60, deltaMs: 20 },
        { key: 'r', label: 'redis GetDriver', typicalMs: 180, slowMs: 170, deltaMs: -10 },
      ],
      720,
    );
    const g = matchGolden(
      import.meta.url,
      'diverging-hotrod',
      <DivergingView layout={layout} title="critical path" />,
    );
    expect(g.actual).toBe(g.expected);
  });
});
