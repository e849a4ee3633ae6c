import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { dedupeSpans, extractCalls } from './calls';
import { summarizeEdges } from './edge-summary';
import type { SpanRecord } from './span-record';
import { classifyCalls, concurrencyOf, groupRequestEdges } from './structure';

const MS = 1_000_000n;
const iv = (a: number, b: number) => ({ startNs: BigInt(a) * MS, endNs: BigInt(b) * MS });

describe('structure of one request edge', () => {
  it('counts touching intervals as sequential (ms-truncated loops) and zero-length as alone', () => {
    expect(concurrencyOf([iv(0, 10), iv(10, 20), iv(20, 20), iv(20, 20), iv(20, 30)])).toBe(1);
    expect(classifyCalls([iv(0, 10), iv(10, 20), iv(20, 30)]).structure).toBe('sequential');
    expect(concurrencyOf([iv(5, 5)])).toBe(1);
    expect(concurrencyOf([])).toBe(0);
  });

  it('classifies single, parallel, pool and sequential', () => {
    expect(classifyCalls([iv(0, 10)])).toEqual({ concurrency: 1, structure: 'single' });
    expect(classifyCalls([iv(0, 10), iv(1, 12), iv(2, 9)])).toEqual({
      concurrency: 3,
      structure: 'parallel',
    });
    // 3 workers, 6 calls: a second wave starts as the first ends.
    const pool = [iv(0, 10), iv(0, 11), iv(0, 12), iv(10, 20), iv(11, 21), iv(12, 22)];
    expect(classifyCalls(pool)).toEqual({ concurrency: 3, structure: 'pool' });
  });

  it('allows send jitter: calls sent within 1 ms are parallel though a short one ended first', () => {
    const sent = [
      { startNs: 0n, endNs: 100_000n },
      { startNs: 200_000n, endNs: 5n * MS },
      { startNs: 900_000n, endNs: 6n * MS },
    ];
    expect(classifyCalls(sent)).toEqual({ concurrency: 2, structure: 'parallel' });
    expect(classifyCalls([iv(0, 1), iv(3, 10), iv(4, 10)]).structure).toBe('pool');
  });
});

/** A request with n calls to one callee through k workers, call i lasting durs[i] ms. */
function requestSpans(n: number, k: number, durs: readonly number[]): SpanRecord[] {
  const base = 1_700_000_000_000n * MS;
  const rootSpan: SpanRecord = {
    traceId: 'a'.repeat(32),
    spanId: 'root',
    parentSpanId: '',
    kind: 'Server',
    service: 'front',
    name: 'GET /',
    startNs: base,
    durationNs: 10_000n * MS,
    resource: {},
    attributes: {},
  };
  const free = Array.from({ length: k }, () => 0);
  const out = [rootSpan];
  for (let i = 0; i < n; i++) {
    const w = free.indexOf(Math.min(...free));
    const start = free[w] as number;
    const dur = durs[i % durs.length] as number;
    free[w] = start + dur;
    const callId = `c${i}`;
    out.push(
      {
        ...rootSpan,
        spanId: callId,
        parentSpanId: 'root',
        kind: 'Client',
        name: 'GET',
        startNs: base + BigInt(start) * MS,
        durationNs: BigInt(dur) * MS,
        attributes: {},
      },
      {
        ...rootSpan,
        spanId: `s${i}`,
        parentSpanId: callId,
        kind: 'Server',
        service: 'kv',
        name: 'get',
        startNs: base + BigInt(start) * MS,
        durationNs: BigInt(dur) * MS,
      },
    );
  }
  return out;
}

const shuffle = <T>(xs: readonly T[], keys: readonly number[]): T[] =>
  xs
    .map((x, i) => ({ x, k: keys[i % keys.length] ?? 0 }))
    .sort((a, b) => a.k - b.k)
    .map((p) => p.x);

describe('properties', () => {
  const shape = fc.record({
    n: fc.integer({ min: 1, max: 12 }),
    k: fc.integer({ min: 1, max: 12 }),
    durs: fc.array(fc.integer({ min: 2, max: 50 }), { minLength: 1, maxLength: 12 }),
    order: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 30 }),
    copies: fc.array(fc.boolean(), { minLength: 1, maxLength: 30 }),
  });

  test.prop([shape])('structure does not depend on span order or duplicated spans', (s) => {
    const spans = requestSpans(s.n, s.k, s.durs);
    const base = groupRequestEdges(extractCalls(spans));
    const noisy = shuffle(
      [...spans, ...spans.filter((_, i) => s.copies[i % s.copies.length])],
      s.order,
    );
    const again = groupRequestEdges(extractCalls(dedupeSpans(noisy).spans));
    expect(again.map((e) => [e.structure, e.concurrency, e.calls.length])).toEqual(
      base.map((e) => [e.structure, e.concurrency, e.calls.length]),
    );
  });

  test.prop([shape])('list scheduling on k workers gives concurrency min(k, n)', (s) => {
    const [e] = groupRequestEdges(extractCalls(requestSpans(s.n, s.k, s.durs)));
    const k = Math.min(s.k, s.n);
    expect(e?.concurrency).toBe(k);
    expect(e?.structure).toBe(
      s.n === 1 ? 'single' : k === 1 ? 'sequential' : k === s.n ? 'parallel' : 'pool',
    );
  });
});

describe('summarizeEdges', () => {
  it('reports a pool with its size, queue waits and shares', () => {
    const spans = requestSpans(10, 3, [50]);
    const [e] = summarizeEdges(groupRequestEdges(extractCalls(spans)), {
      fromNs: 0n,
      toNs: 2n ** 62n,
    });
    expect(e).toMatchObject({
      parentOperation: 'GET /',
      leafService: 'kv',
      requests: 1,
      calls: 10,
      structure: 'pool',
      poolSize: 3,
      concurrency: { p50: 3, max: 3 },
      callsPerRequest: { p50: 10, max: 10 },
    });
    // Waits 0,0,0,50,50,50,100,100,100,150: p50 50 ms; 200 ms of the root's 10 s.
    expect(e?.queueWaitMs?.p50).toBe(50);
    expect(e?.shareOfParent.p50).toBeCloseTo(0.02, 12);
  });
});
