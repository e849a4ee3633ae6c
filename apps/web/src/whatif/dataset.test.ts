import { describe, expect, it } from 'vitest';
import { leafCallsFromRows } from '@tailscope/analysis/testing';
import { synthesizeLeafCalls } from '@tailscope/analysis/testing';
import {
  exampleTrace,
  leafCurves,
  prepareDataset,
  PREVIEW_CALLS,
  previewOf,
  subsampleFanouts,
} from './dataset';

// Three fan-outs of width 4 on hosts host-0..host-3, one second apart.
const calls = leafCallsFromRows(
  [1000, 2000, 3000],
  [
    [
      { durationMs: 10, host: 0 },
      { durationMs: 12, host: 1 },
      { durationMs: 11, host: 2 },
      { durationMs: 95, host: 3 },
    ],
    [
      { durationMs: 9, host: 0 },
      { startMs: 1, durationMs: 40, host: 1 },
      { durationMs: 10, host: 2 },
      { durationMs: 8, host: 3 },
    ],
    [
      { durationMs: 7, host: 0 },
      { durationMs: 9, host: 1 },
      { durationMs: 300, host: 3 },
      { durationMs: 6, host: 2 },
    ],
  ],
  4,
);

describe('prepareDataset', () => {
  const d = prepareDataset(calls);

  it('takes all-leaves time as the latest finish (start + duration) and its host', () => {
    expect(Array.from(d.allLeavesMs)).toEqual([95, 41, 300]);
    expect(Array.from(d.stragglerHost)).toEqual([3, 1, 3]);
  });

  it('takes the 95%-of-leaves time as the ceil(0.95 N)-th order statistic', () => {
    // N = 4: ceil(3.8) = 4th smallest, i.e. the max at this width.
    expect(Array.from(d.p95LeavesMs)).toEqual([95, 41, 300]);
  });

  it('gives curves whose last point is at most the max and which rise', () => {
    const c = leafCurves(d);
    expect(c.allLeaves.at(-1)?.ms).toBeLessThanOrEqual(300);
    for (const curve of [c.oneLeaf, c.allLeaves])
      for (let i = 1; i < curve.length; i++) {
        expect(curve[i]?.p).toBeGreaterThan(curve[i - 1]?.p ?? 1);
        expect(curve[i]?.ms).toBeGreaterThanOrEqual(curve[i - 1]?.ms ?? Infinity);
      }
  });
});

describe('exampleTrace', () => {
  const d = prepareDataset(calls);
  it('picks the slowest fan-out, or the one nearest a latency, or one whose straggler is on a host', () => {
    expect(exampleTrace(d, {})).toBe(calls.traceIds[2]);
    expect(exampleTrace(d, { nearMs: 40 })).toBe(calls.traceIds[1]);
    expect(exampleTrace(d, { host: 'host-1' })).toBe(calls.traceIds[1]);
    expect(exampleTrace(d, { host: 'host-3', toMs: 2500 })).toBe(calls.traceIds[0]);
    expect(exampleTrace(d, { host: 'host-0' })).toBeUndefined();
    expect(exampleTrace(d, { host: 'nope' })).toBeUndefined();
    expect(exampleTrace(d, { width: 4, nearMs: 90 })).toBe(calls.traceIds[0]);
    expect(exampleTrace(d, { width: 5 })).toBeUndefined();
  });
});

describe('subsampleFanouts', () => {
  it('keeps every k-th fan-out whole, with its calls and start time', () => {
    const s = subsampleFanouts(calls, 2);
    // 3 fan-outs, at most 2: k = 2, fan-outs 0 and 2.
    expect(s.traceIds).toEqual([calls.traceIds[0], calls.traceIds[2]]);
    expect(Array.from(s.fanoutOffsets)).toEqual([0, 4, 8]);
    expect(Array.from(s.fanoutStartMs)).toEqual([1000, 3000]);
    expect(Array.from(s.durationMs.subarray(4))).toEqual([7, 9, 300, 6]);
    expect(Array.from(s.host.subarray(4))).toEqual([0, 1, 3, 2]);
    expect(s.hosts).toBe(calls.hosts);
    expect(subsampleFanouts(calls, 10).traceIds).toEqual(calls.traceIds);
  });
});

describe('previewOf', () => {
  it('bounds the preview by calls, whatever the width, and skips small data', () => {
    const wide = synthesizeLeafCalls({ fanouts: 10_000, width: 100, hosts: 10, seed: 1 });
    const p = previewOf(wide);
    // 1M calls -> at least 2,000 fan-outs (the floor wins over 200,000 / 100 = 2,000).
    expect(p?.fanoutOffsets.length).toBe(2_001);
    const narrow = synthesizeLeafCalls({ fanouts: 40_000, width: 10, hosts: 10, seed: 1 });
    const q = previewOf(narrow);
    expect(q?.durationMs.length).toBeLessThanOrEqual(PREVIEW_CALLS);
    expect(previewOf(calls)).toBeNull();
  });
});
