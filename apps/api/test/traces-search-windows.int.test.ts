import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SpanRecord } from '@tailscope/analysis';
import { randomFromSeed } from '@tailscope/analysis/testing';
import type { Store } from '../src/store';
import { searchTraces, type TraceSearch } from '../src/store/traces/search';
import { insertSpans, openTempStore, T0_NS } from './analysis-support';

/**
 * Trace search newest first (with or without span filters) reads back from the range's end in growing windows and stops once
 * `limit` + 1 traces are known whole (traces-search.ts newestMatchingRoots); slowest first it
 * checks the slowest roots for matches in growing rounds (slowestMatchingRoots). On seeded traces
 * over 40 minutes (a root, a db call, sometimes a slow cache call starting 20-55 s before the
 * root), the answers equal a reference computed here by Jaeger's rule over all spans: sparse
 * matches need every window, dense ones few, and a limit above the matches the whole range.
 */

const TRACES = 600;
const GAP_NS = 4_000_000_000n;
const FROM = T0_NS;
const TO = T0_NS + BigInt(TRACES) * GAP_NS;
const SLACK_NS = 60_000_000_000n;

function seededSpans(): SpanRecord[] {
  const r = randomFromSeed(13);
  const spans: SpanRecord[] = [];
  const span = (o: Partial<SpanRecord> & Pick<SpanRecord, 'traceId' | 'spanId'>): SpanRecord => ({
    parentSpanId: '',
    kind: 'Server',
    service: 'api',
    name: 'GET /x',
    startNs: 0n,
    durationNs: 0n,
    resource: {},
    attributes: {},
    ...o,
  });
  for (let i = 0; i < TRACES; i++) {
    const traceId = (i + 1).toString(16).padStart(32, '0');
    const start = FROM + BigInt(i) * GAP_NS + BigInt(Math.floor(r() * 3e9));
    const rootMs = 5 + Math.floor(r() * 200);
    spans.push(
      span({ traceId, spanId: 'a000000000000001', startNs: start, durationNs: ms(rootMs) }),
    );
    spans.push(
      span({
        traceId,
        spanId: 'b000000000000002',
        parentSpanId: 'a000000000000001',
        kind: 'Client',
        service: 'db',
        name: 'query',
        startNs: start + 1_000_000n,
        durationNs: ms(1 + Math.floor(r() * 40)),
      }),
    );
    // A sparse slow call (about one trace in 3), started 20-55 s before its root: a window
    // that starts between the two holds the root but not the match.
    if (r() < 1 / 3 && i < TRACES - 40)
      spans.push(
        span({
          traceId,
          spanId: 'c000000000000003',
          parentSpanId: 'a000000000000001',
          kind: 'Client',
          service: 'cache',
          name: 'get',
          startNs: start - BigInt(Math.floor(20e9 + r() * 35e9)),
          durationNs: ms(500 + Math.floor(r() * 100)),
        }),
      );
  }
  // Near the end, fixed: traces whose root and cache call start (s before TO) at 10/5, 30/29,
  // 50/100 and 70/69. The first window (the last 97.5 s) holds every root and all calls but
  // the 50 s trace's: the newest three are 10, 30 and 50, which a search trusting every root
  // in that window would answer 10, 30, 70.
  for (const [id, rootS, callS] of [
    [0xf01, 10, 5],
    [0xf02, 30, 29],
    [0xf03, 50, 100],
    [0xf04, 70, 69],
  ] as const) {
    const traceId = id.toString(16).padStart(32, '0');
    const at = (sBefore: number): bigint => TO - BigInt(sBefore) * 1_000_000_000n;
    spans.push(
      span({ traceId, spanId: 'a000000000000001', startNs: at(rootS), durationNs: ms(9) }),
    );
    spans.push(
      span({
        traceId,
        spanId: 'c000000000000003',
        parentSpanId: 'a000000000000001',
        kind: 'Client',
        service: 'cache',
        name: 'get',
        startNs: at(callS),
        durationNs: ms(500),
      }),
    );
  }
  return spans;
}

const ms = (v: number): bigint => BigInt(v) * 1_000_000n;

/** Jaeger's rule over all spans: the expected trace ids and first matched span ids, in order. */
function reference(spans: readonly SpanRecord[], s: TraceSearch): string[] {
  const byTrace = new Map<string, SpanRecord[]>();
  for (const sp of spans) byTrace.set(sp.traceId, [...(byTrace.get(sp.traceId) ?? []), sp]);
  const found: { id: string; start: bigint; dur: bigint; first: string }[] = [];
  for (const [id, all] of byTrace) {
    const root = all.find((x) => x.parentSpanId === '');
    if (!root || root.startNs < s.fromNs - SLACK_NS || root.startNs >= s.toNs + SLACK_NS) continue;
    const matches = all
      .filter(
        (x) =>
          x.startNs >= s.fromNs &&
          x.startNs < s.toNs &&
          (s.service === undefined || x.service === s.service) &&
          (s.minDurationNs === undefined || x.durationNs >= s.minDurationNs) &&
          (s.maxDurationNs === undefined || x.durationNs <= s.maxDurationNs),
      )
      .sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0));
    const first = matches[0];
    if (first) found.push({ id, start: root.startNs, dur: root.durationNs, first: first.spanId });
  }
  const key = (f: (typeof found)[number]): bigint => (s.order === 'newest' ? f.start : f.dur);
  found.sort((a, b) => {
    const d = key(b) - key(a);
    return d > 0n ? 1 : d < 0n ? -1 : a.id < b.id ? -1 : 1;
  });
  return found.slice(0, s.limit + 1).map((f) => `${f.id}/${f.first}`);
}

describe('windowed and candidate trace search', () => {
  let store: Store;
  let close: () => Promise<void>;
  const spans = seededSpans();
  beforeAll(async () => {
    ({ store, close } = await openTempStore('traces-search-windows'));
    await insertSpans(store, spans);
  });
  afterAll(async () => {
    await close();
  });

  const cases: [string, Omit<TraceSearch, 'fromNs' | 'toNs'>, bigint][] = [
    ['sparse matches (every window)', { service: 'cache', limit: 5, order: 'newest' }, FROM],
    ['dense matches (few windows)', { service: 'db', limit: 50, order: 'newest' }, FROM],
    ['a duration filter', { minDurationNs: ms(30), limit: 40, order: 'newest' }, FROM],
    ['a sparse duration filter', { minDurationNs: ms(400), limit: 8, order: 'newest' }, FROM],
    ['more asked than match', { service: 'cache', limit: 1000, order: 'newest' }, FROM],
    ['a range starting mid-data', { service: 'db', limit: 20, order: 'newest' }, FROM + ms(9e5)],
    ['slowest, cache calls', { service: 'cache', limit: 5, order: 'slowest' }, FROM],
    ['slowest, dense matches', { service: 'db', limit: 50, order: 'slowest' }, FROM],
    ['slowest, a duration filter', { minDurationNs: ms(30), limit: 40, order: 'slowest' }, FROM],
    [
      // Few matches, the fixed traces' fast roots among them: every candidate round is read.
      'slowest, rare matches',
      {
        service: 'cache',
        minDurationNs: ms(500),
        maxDurationNs: ms(500),
        limit: 5,
        order: 'slowest',
      },
      FROM,
    ],
  ];
  it.each(cases)('%s: the same traces as the reference', async (_name, q, fromNs) => {
    const s: TraceSearch = { ...q, fromNs, toNs: TO + SLACK_NS };
    const want = reference(spans, s);
    const got = await searchTraces(store, s);
    expect(got.map((t) => `${t.traceId}/${t.matchedSpan?.spanId ?? ''}`)).toEqual(want);
    // The answer must reach past the first window to test anything.
    expect(want.length).toBeGreaterThan(Math.min(q.limit, 5));
    for (const t of got) expect(t.spanCount).toBeGreaterThanOrEqual(2);
  });

  // Without span filters newest first: the traces whose root starts in range (not Jaeger's rule),
  // also read back from the range's end in growing windows (newestRoots).
  it.each([
    ['a few', 5, FROM],
    ['many', 120, FROM],
    ['more than there are', 1000, FROM],
    ['a range starting mid-data', 30, FROM + ms(9e5)],
  ] as const)(
    'no span filter, %s: the roots starting in range, newest first',
    async (_n, limit, fromNs) => {
      const s: TraceSearch = { limit, order: 'newest', fromNs, toNs: TO };
      const want = spans
        .filter((x) => x.parentSpanId === '' && x.startNs >= fromNs && x.startNs < TO)
        .sort((a, b) =>
          a.startNs !== b.startNs
            ? b.startNs > a.startNs
              ? 1
              : -1
            : a.traceId < b.traceId
              ? -1
              : 1,
        )
        .slice(0, limit + 1)
        .map((x) => x.traceId);
      const got = await searchTraces(store, s);
      expect(got.map((t) => t.traceId)).toEqual(want);
      expect(want.length).toBeGreaterThan(5);
    },
  );

  it('every limit from 1 to 24 of the sparse search: the reference', async () => {
    for (let limit = 1; limit <= 24; limit++) {
      const s: TraceSearch = { service: 'cache', limit, order: 'newest', fromNs: FROM, toNs: TO };
      const got = await searchTraces(store, s);
      expect(got.map((t) => `${t.traceId}/${t.matchedSpan?.spanId ?? ''}`)).toEqual(
        reference(spans, s),
      );
    }
  });
});
