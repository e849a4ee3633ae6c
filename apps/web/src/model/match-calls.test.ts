import { describe, expect, it } from 'vitest';
import { leafCallsFromRows } from '@tailscope/analysis/testing';
import { backgroundByCall } from './match-calls';
import { buildTraceTree } from './trace-tree';
import { findFanouts } from './fanout';
import { defined, fanoutTrace } from '../test-fixtures';

describe('backgroundByCall', () => {
  it('matches the fan-out by trace id and each call by host and duration', () => {
    const trace = fanoutTrace();
    const f = defined(findFanouts(buildTraceTree(trace.spans))[0]);
    const leaves = leafCallsFromRows(
      [0, 0],
      [
        [{ durationMs: 5, host: 0 }],
        [
          { durationMs: 8, host: 0 },
          { durationMs: 9.5, host: 1 },
          { durationMs: 61, host: 2, background: 1 },
          { durationMs: 7.2, host: 3 },
        ],
      ],
      4,
      ['none', 'compaction'],
    );
    leaves.hosts = ['storage-01', 'storage-02', 'storage-07', 'storage-11'];
    leaves.traceIds = ['ffff', trace.traceId];
    const m = backgroundByCall(leaves, trace.traceId, 'root', f.calls);
    expect(m.get('c2')).toBe('compaction');
    expect(m.get('c0')).toBe('none');
    expect(m.size).toBe(4);
    expect(backgroundByCall(leaves, 'other', 'root', f.calls).size).toBe(0);
  });
});
