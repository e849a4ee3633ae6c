import { describe, expect, it } from 'vitest';
import { WaterfallView } from './WaterfallView';
import { layoutWaterfall } from './layout';
import { buildTraceTree } from '../../model/trace-tree';
import { findFanouts } from '../../model/fanout';
import { waterfallRows } from '../../model/waterfall-rows';
import { fanoutTrace } from '../fixtures';
import { matchGolden } from '../golden';

describe('WaterfallView', () => {
  it('matches its golden SVG for a four-call fan-out with a contended straggler', () => {
    const tree = buildTraceTree(fanoutTrace().spans);
    const rows = waterfallRows(tree, findFanouts(tree)[0], (c) =>
      c.host === 'storage-07' ? 'compaction' : undefined,
    );
    const g = matchGolden(
      import.meta.url,
      'waterfall-contended-straggler',
      <WaterfallView layout={layoutWaterfall(rows, tree.totalMs, 900)} title="trace" />,
    );
    expect(g.actual).toBe(g.expected);
    expect(g.actual).toContain('storage-07 · contended · compaction');
  });
});
