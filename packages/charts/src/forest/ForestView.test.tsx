import { describe, expect, it } from 'vitest';
import { ForestView } from './ForestView';
import { layoutForest } from './layout';
import { sickHostStragglers } from '../fixtures';
import { matchGolden } from '../golden';

describe('ForestView', () => {
  it('matches its golden SVG for the sick-host attribution', () => {
    const layout = layoutForest(sickHostStragglers, 860);
    const g = matchGolden(
      import.meta.url,
      'forest-sick-host',
      <ForestView
        layout={layout}
        title="risk ratios"
        onOpen={() => undefined}
        canOpen={(r) => r.dimension === 'host'}
      />,
    );
    expect(g.actual).toBe(g.expected);
    // Host rows are buttons, the others are not.
    expect(g.actual.match(/role="button"/g)).toHaveLength(2);
  });
});
