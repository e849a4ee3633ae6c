import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import {
  criticalPath,
  criticalPathByOperation,
  markSyncAnswers,
  type PathSpan,
} from './critical-path';
import { addToBand, compareBands, compareCriticalPaths, emptyBand } from './critical-path-bands';

const span = (spanId: string, parentSpanId: string, startMs: number, durationMs: number) => ({
  spanId,
  parentSpanId,
  startMs,
  durationMs,
});

const selfOf = (spans: PathSpan[]): Record<string, number> =>
  Object.fromEntries(criticalPath(spans).segments.map((s) => [s.spanId, s.selfMs]));

describe('critical path, named scenarios', () => {
  it('a lone root owns its whole duration', () => {
    expect(selfOf([span('r', '', 0, 10)])).toEqual({ r: 10 });
  });

  it('parallel siblings: only the last to finish is on the path', () => {
    // HotROD-like: a long MySQL call beside shorter parallel calls.
    const spans = [span('r', '', 0, 100), span('a', 'r', 5, 80), span('b', 'r', 10, 50)];
    expect(selfOf(spans)).toEqual({ r: 20, a: 80 });
  });

  it('sequential children: each is on the path, gaps are the parent self time', () => {
    const spans = [span('r', '', 0, 30), span('a', 'r', 0, 10), span('b', 'r', 10, 15)];
    // b [10,25], a [0,10] touching; r owns [25,30].
    expect(selfOf(spans)).toEqual({ r: 5, a: 10, b: 15 });
  });

  it('overlapping children: the earlier one is entered only for what precedes the later', () => {
    const spans = [span('r', '', 0, 100), span('a', 'r', 10, 50), span('b', 'r', 40, 50)];
    // b [40,90] on the path, then walking back from 40: a ends at 60 > 40, so not on it.
    expect(selfOf(spans)).toEqual({ r: 50, b: 50 });
  });

  it('an async child ending after its parent is not on the path', () => {
    const spans = [span('r', '', 0, 10), span('async', 'r', 5, 100)];
    expect(selfOf(spans)).toEqual({ r: 10 });
  });

  it('a SERVER answer overrunning its CLIENT (skew) is clipped and stays on the path', () => {
    const spans = [
      span('r', '', 0, 100),
      span('client', 'r', 10, 80),
      { ...span('server', 'client', 12, 80), sync: true },
    ];
    // The server ends at 92 on its own clock, after the client's 90: clipped to 90.
    expect(selfOf(spans)).toEqual({ r: 20, client: 2, server: 78 });
  });

  it('a child starting before its parent (skew) is clipped, never negative', () => {
    const spans = [span('r', '', 10, 10), span('c', 'r', 0, 15)];
    // c is [0,15], clipped to [10,15]; r owns [15,20].
    expect(selfOf(spans)).toEqual({ r: 5, c: 5 });
    const total = criticalPath(spans).pieces.reduce((a, p) => a + p.toMs - p.fromMs, 0);
    expect(total).toBe(10);
  });

  it('a child wholly before its parent is not on the path', () => {
    expect(selfOf([span('r', '', 100, 10), span('c', 'r', 0, 50)])).toEqual({ r: 10 });
  });

  it('the same span id twice counts once', () => {
    const spans = [span('r', '', 0, 10), span('c', 'r', 2, 6), span('c', 'r', 2, 6)];
    expect(selfOf(spans)).toEqual({ r: 4, c: 6 });
  });

  it('a longer duplicate of the root id under a descendant leaves the real root root', () => {
    // Issue 25: the copy of r under c was kept (longest), making r -> c -> r a cycle, no root.
    const spans = [span('r', '', 0, 100), span('c', 'r', 10, 80), span('r', 'c', 20, 200)];
    const cp = criticalPath(spans);
    expect(cp.rootSpanId).toBe('r');
    expect(selfOf(spans)).toEqual({ r: 20, c: 80 });
    expect(criticalPath([...spans].reverse())).toEqual(cp);
  });

  it('a trace that is only a cycle still has a path, broken at its longest span', () => {
    const cp = criticalPath([span('a', 'b', 0, 100), span('b', 'a', 10, 50)]);
    expect(cp.rootSpanId).toBe('a');
    expect(cp.segments.map((g) => [g.spanId, g.selfMs])).toEqual([
      ['a', 50],
      ['b', 50],
    ]);
  });

  it('descends through grandchildren', () => {
    const spans = [
      span('r', '', 0, 100),
      span('c', 'r', 10, 80),
      span('g1', 'c', 20, 30),
      span('g2', 'c', 60, 20),
    ];
    expect(selfOf(spans)).toEqual({ r: 20, c: 30, g1: 30, g2: 20 });
  });

  it('a 20,000-deep chain does not overflow the stack', () => {
    const spans: PathSpan[] = [];
    for (let i = 0; i < 20_000; i++)
      spans.push(span(`s${i}`, i === 0 ? '' : `s${i - 1}`, i, 1e5 - 2 * i));
    const cp = criticalPath(spans);
    expect(cp.segments).toHaveLength(20_000);
    expect(cp.pieces.reduce((a, p) => a + p.toMs - p.fromMs, 0)).toBeCloseTo(1e5, 6);
  });

  it('aggregates self time per (service, operation)', () => {
    const by = criticalPathByOperation([
      { ...span('r', '', 0, 100), service: 'frontend', operation: 'GET /dispatch' },
      { ...span('a', 'r', 0, 30), service: 'mysql', operation: 'SQL SELECT' },
      { ...span('b', 'r', 30, 60), service: 'mysql', operation: 'SQL SELECT' },
    ]);
    expect(by.get('mysql\u0000SQL SELECT')).toBe(90);
    expect(by.get('frontend\u0000GET /dispatch')).toBe(10);
  });

  it('empty trace: no root', () => {
    expect(criticalPath([])).toEqual({ rootSpanId: null, segments: [], pieces: [] });
  });
});

/** A random tree (integer times so sums are exact), children possibly overrunning or skewed. */
const trees = fc
  .array(
    fc.record({
      parent: fc.nat(),
      start: fc.integer({ min: -20, max: 200 }),
      dur: fc.integer({ min: 0, max: 200 }),
      sync: fc.boolean(),
    }),
    { minLength: 1, maxLength: 40 },
  )
  .map((rows) =>
    rows.map((r, i) =>
      span(
        `s${i}`,
        i === 0 ? '' : `s${r.parent % i}`,
        i === 0 ? 0 : r.start,
        i === 0 ? 250 : r.dur,
      ),
    ),
  );

const sumPieces = (spans: PathSpan[]): number =>
  criticalPath(spans).pieces.reduce((a, p) => a + (p.toMs - p.fromMs), 0);

describe('critical path properties', () => {
  test.prop([trees])('pieces cover the root exactly: self times sum to its duration', (spans) => {
    const cp = criticalPath(spans);
    expect(cp.segments.reduce((a, s) => a + s.selfMs, 0)).toBe(250);
    expect(sumPieces(spans)).toBe(250);
    let t = 0;
    for (const p of cp.pieces) {
      expect(p.fromMs).toBe(t);
      expect(p.toMs).toBeGreaterThan(p.fromMs);
      t = p.toMs;
    }
    if (cp.pieces.length > 0) expect(t).toBe(250);
  });

  test.prop([trees, fc.integer()])('invariant under span order and duplication', (spans, seed) => {
    const shuffled = [...spans, ...spans.filter((_, i) => (i + seed) % 3 === 0)];
    let x = seed >>> 0;
    for (let i = shuffled.length - 1; i > 0; i--) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      const j = x % (i + 1);
      [shuffled[i], shuffled[j]] = [shuffled[j] as PathSpan, shuffled[i] as PathSpan];
    }
    expect(criticalPath(shuffled)).toEqual(criticalPath(spans));
  });

  test.prop([trees])(
    'a span is on the path only within its own interval and its parent',
    (spans) => {
      const byId = new Map(spans.map((s) => [s.spanId, s]));
      for (const p of criticalPath(spans).pieces) {
        const s = byId.get(p.spanId);
        expect(s).toBeDefined();
        if (!s) continue;
        expect(p.toMs).toBeLessThanOrEqual(s.startMs + s.durationMs);
        expect(p.fromMs).toBeLessThan(p.toMs);
        expect(p.fromMs).toBeGreaterThanOrEqual(s.startMs);
        // Every ancestor of a span on the path is on the path too, and ends no earlier.
        const parent = byId.get(s.parentSpanId);
        if (parent) {
          expect(s.startMs + s.durationMs).toBeLessThanOrEqual(parent.startMs + parent.durationMs);
          expect(criticalPath(spans).segments.some((g) => g.spanId === parent.spanId)).toBe(true);
        }
      }
    },
  );

  test.prop([trees])(
    'no span at any point of the path ends later yet before the point',
    (spans) => {
      // At a piece owned by S, no eligible child of S runs (else the walk would have entered it).
      const cp = criticalPath(spans);
      for (const p of cp.pieces) {
        for (const c of spans) {
          if (c.parentSpanId !== p.spanId) continue;
          const end = c.startMs + c.durationMs;
          const parent = spans.find((s) => s.spanId === p.spanId);
          if (!parent || end > parent.startMs + parent.durationMs) continue;
          // c's end cannot fall strictly inside a piece its parent owns.
          expect(end > p.fromMs && end < p.toMs).toBe(false);
        }
      }
    },
  );
});

describe('critical path bands', () => {
  const trace = (mysqlMs: number, redisMs: number) => [
    { ...span('r', '', 0, mysqlMs + redisMs + 5), service: 'frontend', operation: 'GET /dispatch' },
    { ...span('m', 'r', 0, mysqlMs), service: 'mysql', operation: 'SQL SELECT' },
    { ...span('x', 'r', mysqlMs, redisMs), service: 'redis', operation: 'GetDriver' },
  ];
  it('puts the operation that grew most in the tail first, shares summing to 1', () => {
    const entries = compareCriticalPaths(
      [trace(1000, 20), trace(1200, 20)],
      [trace(100, 20), trace(100, 30), trace(100, 10)],
    );
    expect(entries[0]).toMatchObject({
      service: 'mysql',
      slowMs: 1100,
      typicalMs: 100,
      deltaMs: 1000,
    });
    expect(entries.reduce((a, e) => a + e.slowShare, 0)).toBeCloseTo(1, 12);
    expect(entries.reduce((a, e) => a + e.typicalShare, 0)).toBeCloseTo(1, 12);
    const redis = entries.find((e) => e.service === 'redis');
    expect(redis?.deltaMs).toBeCloseTo(0, 12);
  });
  it('a trace of weight 2 counts as two copies of it (weighted means)', () => {
    const weighted = emptyBand();
    addToBand(weighted, trace(1000, 20), 2);
    addToBand(weighted, trace(400, 20));
    const copies = emptyBand();
    for (const t of [trace(1000, 20), trace(1000, 20), trace(400, 20)]) addToBand(copies, t);
    expect(compareBands(weighted, emptyBand())).toEqual(compareBands(copies, emptyBand()));
    const mysql = compareBands(weighted, emptyBand()).find((e) => e.service === 'mysql');
    expect(mysql?.slowMs).toBeCloseTo(800, 9);
  });
  it('an empty band gives zero means and shares', () => {
    const entries = compareCriticalPaths([], [trace(1, 1)]);
    expect(entries.every((e) => e.slowMs === 0 && e.slowShare === 0)).toBe(true);
  });
});

describe('markSyncAnswers', () => {
  it('marks SERVER spans under CLIENT spans, whatever the spelling', () => {
    const marked = markSyncAnswers([
      { ...span('c', '', 0, 10), kind: 'SPAN_KIND_CLIENT' },
      { ...span('s', 'c', 1, 10), kind: 'Server' },
      { ...span('i', 'c', 1, 10), kind: 'internal' },
      { ...span('s2', 'i', 1, 10), kind: 'server' },
    ]);
    expect(marked.map((m: PathSpan) => m.sync === true)).toEqual([false, true, false, false]);
  });
});
