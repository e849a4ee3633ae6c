import { describe, expect, it } from 'vitest';
import { PercentileBarsView } from './PercentileBarsView';
import { layoutPercentileBars } from './layout';
import { matchGolden } from '../golden';

describe('PercentileBarsView', () => {
  it('matches its golden SVG for a hedge that cuts p99', () => {
    const layout = layoutPercentileBars(
      { p50: 12, p90: 40, p99: 1000, p999: 1200 },
      {
        p50: { value: 12, low: 11.5, high: 12.5 },
        p90: { value: 30, low: 28, high: 33 },
        p99: { value: 60, low: 52, high: 75 },
        p999: { value: 1100, low: 900, high: 1300 },
      },
      560,
    );
    const g = matchGolden(
      import.meta.url,
      'bars-hedge',
      <PercentileBarsView layout={layout} title="percentiles" />,
    );
    expect(g.actual).toBe(g.expected);
  });
});
