import { describe, expect, it } from 'vitest';
import { WaterfallView } from './WaterfallView';
import { layoutWaterfall } from './layout';
import { FANOUT_TRACE_MS, fanoutTraceRows } from '../fixtures';
import { matchGolden } from '../golden';

describe('WaterfallView', () => {
  it('matches its golden SVG for a four-call fan-out with a contended straggler', () => {
    // The page looks up background activity in other traces: storage-07 was compacting.
    const rows = fanoutTraceRows.map((r) =>
      r.host === 'storage-07' ? { ...r, background: 'compaction' } : r,
    );
    const g = matchGolden(
      import.meta.url,
      'waterfall-contended-straggler',
      <WaterfallView layout={layoutWaterfall(rows, FANOUT_TRACE_MS, 900)} title="trace" />,
    );
    expect(g.actual).toBe(g.expected);
    expect(g.actual).toContain('storage-07 · contended · compaction');
  });
});
