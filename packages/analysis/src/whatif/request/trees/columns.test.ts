import { describe, expect, it } from 'vitest';
import { randomTraceSpans as randomSpans } from './random-traces';
import { requestTreesFromColumns } from './columns';
import { requestTreesFromSpans, STRUCTURE_CODE } from './trees';
import { spanColumnsFromSpans } from './span-columns';
import type { SpanRecord } from '../../../span-record';
import { SeededRandom } from '../../../random';
import { KeyIndex } from './scratch';

/** Spans as the store reads them: by trace, start, span id. */
const cmp = <T>(a: T, b: T): number => (a < b ? -1 : a > b ? 1 : 0);
const inStoreOrder = (spans: SpanRecord[]): SpanRecord[] =>
  [...spans].sort(
    (a, b) => cmp(a.traceId, b.traceId) || cmp(a.startNs, b.startNs) || cmp(a.spanId, b.spanId),
  );

describe('requestTreesFromColumns', () => {
  it.each([1, 2, 3, 4, 5])('builds the same trees as requestTreesFromSpans (seed %i)', (seed) => {
    const spans = randomSpans(seed, 800);
    const columns = spanColumnsFromSpans(spans);
    // The store reads spans by (trace, start, span id): the reference gets them in that order.
    const ordered = inStoreOrder(spans);
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

  it('classifies wide groups as the span objects do (more than 32 calls on one edge)', () => {
    // Random traces hold at most 30 spans; these hold 40-200 calls of one parent on one edge,
    // some sequential, some overlapping, with tied starts.
    const rng = new SeededRandom(11);
    const spans: SpanRecord[] = [];
    for (let t = 0; t < 20; t++) {
      const traceId = `w${String(t).padStart(3, '0')}`;
      const base = 1_700_000_000_000_000_000n + BigInt(t) * 1_000_000_000n;
      spans.push({
        traceId,
        spanId: 'root',
        parentSpanId: '',
        kind: 'Server',
        service: 'frontend',
        name: 'GET /',
        startNs: base,
        durationNs: 900_000_000n,
        resource: { 'host.name': 'h0' },
        attributes: {},
      });
      const n = 40 + Math.floor(rng.float() * 160);
      const sequential = t % 3 === 0;
      for (let i = 0; i < n; i++) {
        const start = sequential
          ? BigInt(i) * 2_000_000n
          : BigInt(Math.floor(rng.float() * 20)) * 500_000n;
        spans.push({
          traceId,
          spanId: `c${i}`,
          parentSpanId: 'root',
          kind: 'Server',
          service: 'leaf',
          name: 'get',
          startNs: base + start,
          durationNs: sequential
            ? 1_000_000n
            : BigInt(1 + Math.floor(rng.float() * 3)) * 1_000_000n,
          resource: { 'host.name': `h${i % 7}` },
          attributes: {},
        });
      }
    }
    const ordered = inStoreOrder(spans);
    const want = requestTreesFromSpans(ordered);
    const kinds = new Set(want.structure);
    expect(kinds.has(STRUCTURE_CODE.sequential) && kinds.has(STRUCTURE_CODE.pool)).toBe(true);
    expect(requestTreesFromColumns(spanColumnsFromSpans(spans))).toEqual(want);
  });
});

describe('KeyIndex', () => {
  it('keeps the first index of a key, forgets all on reset, and probes past collisions', () => {
    const ix = new KeyIndex(4);
    // 16 slots: keys 16 apart share a slot.
    expect(ix.add(3, 0)).toBe(true);
    expect(ix.add(19, 1)).toBe(true);
    expect(ix.add(3, 2)).toBe(false);
    expect([ix.get(3), ix.get(19), ix.get(35)]).toEqual([0, 1, -1]);
    ix.reset();
    expect([ix.get(3), ix.get(19)]).toEqual([-1, -1]);
    expect(ix.add(2 ** 52 + 3, 5)).toBe(true);
    expect(ix.get(2 ** 52 + 3)).toBe(5);
  });
});
