import { describe, expect, it } from 'vitest';
import { buildTraceTree, flattenTree } from './trace-tree';
import { findFanouts, hostOf } from './fanout';
import { rowIdOf, waterfallRows } from './waterfall-rows';
import { fanoutTrace } from '../test-fixtures';
import type { TraceSpan } from '../api/contracts';

describe('trace model', () => {
  const trace = fanoutTrace();
  const tree = buildTraceTree(trace.spans);

  it('orders spans depth-first by start time, with ms relative to the first span', () => {
    const order = flattenTree(tree.roots).map((t) => `${'-'.repeat(t.depth)}${t.span.spanId}`);
    expect(order).toEqual([
      'root',
      '-c0',
      '--s0',
      '-c1',
      '--s1',
      '-c2',
      '--s2',
      '-c3',
      '--s3',
      '-db',
    ]);
    expect(tree.byId.get('c2')?.startMs).toBeCloseTo(0.3, 9);
    expect(tree.totalMs).toBeCloseTo(64, 9);
  });

  it('finds the fan-out, names its leaf by the SERVER spans and picks the latest finisher', () => {
    const [f] = findFanouts(tree);
    expect(f?.leafService).toBe('storage');
    expect(f?.leafOperation).toBe('Read');
    expect(f?.calls).toHaveLength(4);
    const s = f?.calls[f.straggler];
    expect(s?.host).toBe('storage-07');
    expect(s?.sharingMode).toBe('contended');
    // Finishing time = end - earliest start (0.1 ms): 0.3 + 61 - 0.1.
    expect(s?.finishMs).toBeCloseTo(61.2, 9);
  });

  it('does not call sequential same-operation children a fan-out', () => {
    const seq = trace.spans.map((s): TraceSpan =>
      s.spanId === 'c1' ? { ...s, startTimeUnixNano: String(1_700_000_000_070_000_000n) } : s,
    );
    const two = seq.filter((s) => ['root', 'c0', 's0', 'c1', 's1'].includes(s.spanId));
    expect(findFanouts(buildTraceTree(two))).toEqual([]);
  });

  it('takes the host from the answering resource, else the client address', () => {
    const client = trace.spans.find((s) => s.spanId === 'c1');
    expect(hostOf(undefined, client)).toBe('storage-02');
    expect(hostOf(undefined, undefined)).toBe('unknown');
  });

  it('folds each SERVER span into its call row and marks the straggler', () => {
    const f = findFanouts(tree)[0];
    const rows = waterfallRows(tree, f, (c) => (c.host === 'storage-07' ? 'compaction' : 'none'));
    expect(rows.map((r) => r.id)).toEqual(['root', 'c0', 'c1', 'c2', 'c3', 'db']);
    const straggler = rows.find((r) => r.straggler);
    expect(straggler?.id).toBe('c2');
    expect(straggler?.background).toBe('compaction');
    expect(straggler?.inner?.durationMs).toBeCloseTo(60.6, 9);
    expect(rows.find((r) => r.id === 'c0')?.background).toBeUndefined();
  });

  it("selects a folded SERVER span's call row, and every other span's own row", () => {
    const rows = waterfallRows(tree, findFanouts(tree)[0]);
    // The critical-path table may list s2 (the server's own time) or c2 (the client's wait).
    expect(rowIdOf(rows, 's2')).toBe('c2');
    expect(rowIdOf(rows, 'c2')).toBe('c2');
    expect(rowIdOf(rows, 'db')).toBe('db');
    expect(rowIdOf(rows, undefined)).toBeUndefined();
    for (const s of trace.spans) expect(rows.map((r) => r.id)).toContain(rowIdOf(rows, s.spanId));
  });
});
