import { describe, expect, it } from 'vitest';
import { randomTraceSpans as randomSpans } from './random-traces';
import { requestTreesFromColumns } from './columns';
import { requestTreesFromSpans } from './trees';
import { spanColumnsFromSpans } from './span-columns';

describe('requestTreesFromColumns', () => {
  it.each([1, 2, 3, 4, 5])('builds the same trees as requestTreesFromSpans (seed %i)', (seed) => {
    const spans = randomSpans(seed, 800);
    const columns = spanColumnsFromSpans(spans);
    // The store reads spans by (trace, start, span id): the reference gets them in that order.
    const ordered = [...spans].sort(
      (a, b) =>
        (a.traceId < b.traceId ? -1 : a.traceId > b.traceId ? 1 : 0) ||
        (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0) ||
        (a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0),
    );
    const want = requestTreesFromSpans(ordered);
    const got = requestTreesFromColumns(columns);
    expect(want.requestStartMs.length).toBeGreaterThan(200);
    expect(want.edges.length).toBeGreaterThan(20);
    expect(new Set(want.structure).size).toBe(4); // single, parallel, pool, sequential all occur
    expect(got).toEqual(want);
  });

  it('keeps the first copy of a duplicated span', () => {
    const spans = randomSpans(7, 50);
    const twice = [...spans, ...spans.map((s) => ({ ...s, durationNs: s.durationNs + 1n }))];
    expect(requestTreesFromColumns(spanColumnsFromSpans(twice))).toEqual(
      requestTreesFromColumns(spanColumnsFromSpans(spans)),
    );
  });

  it('gives no requests for no spans', () => {
    const t = requestTreesFromColumns(spanColumnsFromSpans([]));
    expect(t.requestStartMs.length).toBe(0);
    expect(Array.from(t.nodeOffsets)).toEqual([0]);
  });
});
