import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../random';
import type { SpanRecord } from '../span-record';
import { requestTreesFromColumns } from './request-trees-columns';
import { requestTreesFromSpans } from './request-trees';
import { spanColumnsFromSpans } from './span-columns';

const KINDS = ['Server', 'Client', 'Internal', 'Producer', 'Consumer', 'Unspecified'];
const SERVICES = ['frontend', 'route', 'redis', 'mysql', 'driver'];
const CLIENT_ATTRS: Record<string, string>[] = [
  {},
  { 'peer.service': 'redis' },
  { 'db.system': 'mysql' },
  { 'http.method': 'GET', 'http.target': '/x' },
  { 'server.address': 'cache:6379' },
];

/**
 * Random traces with every case the calls definition distinguishes: client spans answered by
 * zero, one or several servers, unanswered calls named by attributes, producers to a named
 * broker, wrappers (one child), cross-service INTERNAL spans, SERVER spans under non-call
 * parents, missing parents, traces without a root, duplicated spans, equal start times.
 */
function randomSpans(seed: number, traces: number): SpanRecord[] {
  const rng = new SeededRandom(seed);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rng.float() * a.length)] as T;
  const out: SpanRecord[] = [];
  for (let t = 0; t < traces; t++) {
    const traceId = `t${String(t).padStart(4, '0')}`;
    const n = 1 + Math.floor(rng.float() * 30);
    const spans: SpanRecord[] = [];
    const base = 1_700_000_000_000_000_000n + BigInt(t) * 1_000_000_000n;
    for (let i = 0; i < n; i++) {
      const parent = i === 0 ? null : spans[Math.floor(rng.float() * i)];
      const noRoot = i === 0 && rng.float() < 0.05;
      const missing = i > 0 && rng.float() < 0.03;
      // Coarse start times so that ties (and the 1 ms send jitter) happen.
      const start = (parent?.startNs ?? base) + BigInt(Math.floor(rng.float() * 8)) * 500_000n;
      const host = rng.float() < 0.8 ? { 'host.name': `h${Math.floor(rng.float() * 4)}` } : {};
      const mode = rng.float() < 0.5 ? { 'host.sharing_mode': pick(['shared', 'dedicated']) } : {};
      spans.push({
        traceId,
        spanId: `s${i}`,
        parentSpanId: noRoot ? 'gone' : i === 0 ? '' : missing ? `x${i}` : (parent?.spanId ?? ''),
        kind: i === 0 ? 'Server' : pick(KINDS),
        service: pick(SERVICES),
        name: `op${Math.floor(rng.float() * 3)}`,
        startNs: start,
        durationNs: BigInt(Math.floor(rng.float() * 10)) * 1_000_000n,
        resource: { ...host, ...mode },
        attributes: pick(CLIENT_ATTRS),
      });
    }
    out.push(...spans);
    if (rng.float() < 0.1 && spans[1]) out.push({ ...spans[1], durationNs: 123n }); // a copy
  }
  return out;
}

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
