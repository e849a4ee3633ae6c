import { describe, expect, it } from 'vitest';
import { DumbbellView } from './DumbbellView';
import { layoutDumbbell } from './layout';
import { matchGolden } from '../golden';

describe('DumbbellView', () => {
  it('matches its golden SVG for two operations', () => {
    const layout = layoutDumbbell(
      [
        {
          key: 'a',
          label: 'frontend GET /search → index Search',
          leafP50: 10,
          leafP99: 50,
          allP99: 1000,
        },
        { key: 'b', label: 'api GET /user → cache Get', leafP50: 0.4, leafP99: 2, allP99: 4 },
      ],
      720,
    );
    const g = matchGolden(
      import.meta.url,
      'dumbbell-two-ops',
      <DumbbellView layout={layout} title="amplification" />,
    );
    expect(g.actual).toBe(g.expected);
  });
});
