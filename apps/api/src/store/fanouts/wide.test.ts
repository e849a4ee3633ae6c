import { describe, expect, it } from 'vitest';
import { ROOT_PARENT_KEY, type LeafCalls, type SpanColumns } from '@tailscope/analysis';
import { capFanoutCalls, capWideParents, sampledFanoutsOf, wideFanoutNote } from './wide';

/** Fan-outs of the given widths; call i of the whole lasts i ms. */
function leafCalls(widths: readonly number[]): LeafCalls {
  const n = widths.reduce((a, b) => a + b, 0);
  const offsets = [0];
  for (const w of widths) offsets.push((offsets.at(-1) ?? 0) + w);
  const seq = Float64Array.from({ length: n }, (_, i) => i);
  return {
    fanoutOffsets: Uint32Array.from(offsets),
    fanoutStartMs: Float64Array.from(widths, (_, f) => f * 100),
    traceIds: widths.map((_, f) => `t${f}`),
    parentSpanIds: widths.map((_, f) => `p${f}`),
    startMs: seq,
    durationMs: seq,
    host: new Uint32Array(n),
    mode: new Uint32Array(n),
    background: new Uint32Array(n),
    hosts: ['h'],
    modes: ['m'],
    backgrounds: ['none'],
    weights: Float64Array.from(widths, (_, f) => f + 1),
  };
}

describe('capFanoutCalls', () => {
  it('returns the input when no fan-out is wider than the bound', () => {
    const calls = leafCalls([3, 4]);
    expect(capFanoutCalls(calls, 4, 1)).toEqual({ calls, sampledFanouts: 0 });
  });

  it('samples the wide fan-outs down to the bound, in order, deterministically', () => {
    const calls = leafCalls([3, 50, 2, 20]);
    const { calls: out, sampledFanouts } = capFanoutCalls(calls, 5, 1);
    expect(sampledFanouts).toBe(2);
    expect([...out.fanoutOffsets]).toEqual([0, 3, 8, 10, 15]);
    // Narrow fan-outs are untouched; the wide ones keep 5 of their own calls, in order.
    expect([...out.durationMs.slice(0, 3)]).toEqual([0, 1, 2]);
    const wide = [...out.durationMs.slice(3, 8)];
    expect(wide).toEqual([...wide].sort((a, b) => a - b));
    for (const d of wide) expect(d >= 3 && d < 53).toBe(true);
    expect(out.weights).toEqual(calls.weights);
    expect(out.traceIds).toEqual(calls.traceIds);
    expect(capFanoutCalls(calls, 5, 1).calls).toEqual(out);
    expect(capFanoutCalls(calls, 5, 2).calls.durationMs).not.toEqual(out.durationMs);
  });
});

/** One trace: a root with `width` children, each with one grandchild. */
function columns(width: number): SpanColumns {
  const spanKey = [1];
  const parentKey = [ROOT_PARENT_KEY];
  for (let c = 0; c < width; c++) {
    spanKey.push(100 + c, 10_000 + c);
    parentKey.push(1, 100 + c);
  }
  const n = spanKey.length;
  return {
    traceIds: ['t'],
    traceOffsets: Uint32Array.from([0, n]),
    baseNs: 0n,
    spanKey: Float64Array.from(spanKey),
    parentKey: Float64Array.from(parentKey),
    startNs: new Float64Array(n),
    durationNs: Float64Array.from({ length: n }, (_, i) => i),
    desc: new Uint32Array(n),
    descriptors: [],
  };
}

describe('capWideParents', () => {
  it('returns the input when no span has more children than the bound', () => {
    const cols = columns(4);
    expect(capWideParents(cols, 4, 1)).toEqual({ columns: cols, sampledFanouts: 0 });
  });

  it('keeps the bound of children with their subtrees, and no orphan', () => {
    const { columns: out, sampledFanouts } = capWideParents(columns(40), 6, 1);
    expect(sampledFanouts).toBe(1);
    expect([...out.traceOffsets]).toEqual([0, 1 + 2 * 6]);
    const keys = new Set(out.spanKey);
    const children = [...out.parentKey].filter((p) => p === 1).length;
    expect(children).toBe(6);
    for (const p of out.parentKey) if (p !== ROOT_PARENT_KEY) expect(keys.has(p)).toBe(true);
  });
});

describe('wideFanoutNote', () => {
  it('is read back by sampledFanoutsOf, per place', () => {
    const notes = ['other', wideFanoutNote(3, 'whole requests')];
    expect(sampledFanoutsOf(notes, 'whole requests')).toBe(3);
    expect(sampledFanoutsOf(notes, 'fan-out replay')).toBe(0);
  });
});
