import { describe, expect, it } from 'vitest';
import { CdfView } from './CdfView';
import { layoutCdf } from './layout';
import { fanoutCurves } from '../fixtures';
import { matchGolden } from '../golden';

describe('CdfView', () => {
  it('matches its golden SVG for one leaf vs all leaves at width 100', () => {
    const curves = fanoutCurves(500, 100, 3);
    const layout = layoutCdf(
      [
        { key: 'one', label: 'one leaf', tone: 'base', points: curves.oneLeaf.slice(0, 40) },
        { key: 'all', label: 'all leaves', tone: 'accent', points: curves.allLeaves.slice(0, 40) },
      ],
      { width: 480, height: 260 },
      [{ key: 'thr', ms: 900, label: 'threshold 900 ms' }],
    );
    const g = matchGolden(
      import.meta.url,
      'cdf-width-100',
      <CdfView layout={layout} title="CDF" />,
    );
    expect(g.actual).toBe(g.expected);
  });
});
