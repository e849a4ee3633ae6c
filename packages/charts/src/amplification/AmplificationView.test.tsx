import { describe, expect, it } from 'vitest';
import { AmplificationView } from './AmplificationView';
import { layoutAmplification } from './layout';
import { independentCurve } from '../fixtures';
import { matchGolden } from '../golden';

describe('AmplificationView', () => {
  it('matches its golden SVG for independent slowness at width 100', () => {
    const layout = layoutAmplification(
      independentCurve,
      { thresholdMs: 980, widthP50: 100 },
      { width: 480, height: 260 },
    );
    const g = matchGolden(
      import.meta.url,
      'amplification-independent',
      <AmplificationView layout={layout} title="amplification" />,
    );
    expect(g.actual).toBe(g.expected);
  });
});
