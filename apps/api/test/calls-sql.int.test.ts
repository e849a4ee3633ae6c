import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EDGE_SLACK_NS, extractCalls, type Call, type SpanRecord } from '@tailscope/analysis';
import {
  dedupeSpans,
  groupRequestEdges,
  skewPairs,
  summarizeEdges,
} from '@tailscope/analysis/testing';
import type { Store } from '../src/store';
import { callCtes } from '../src/store/sql/calls';
import { selectDuplicates, selectEdges, selectSkew } from '../src/store/edges';
import { cacheCovers, materializeFanouts } from '../src/store/fanouts';
import { withCtes } from '../src/store/fanouts/sql';
import { sql } from '../src/store/sql/template';
import { insertSpans, openTempStore, T0_NS } from './analysis-support';
import { callShapes } from './calls-support';

/**
 * The calls and edges SQL against the TypeScript reference (calls.ts, structure.ts,
 * edge-summary.ts) on the same spans: every call of the range's traces with its caller, callee,
 * host, timing and skew;
 * every edge's aggregate; duplicates and skew pairs. Quantiles compared to 1e-9 (float64).
 */

const REQUESTS = 400;
const FROM = T0_NS + 1_000_000_000n; // cuts into the data: requests before it are out
const TO = T0_NS + BigInt(REQUESTS) * 50_000_000n - 2_000_000_000n;

const callRow = (c: Omit<Call, 'attributes' | 'via' | 'callerStartNs'>): string =>
  JSON.stringify([
    c.traceId,
    c.callerSpanId,
    c.callerService,
    c.callerOperation,
    String(c.callerDurationNs),
    c.spanId,
    c.leafService,
    c.leafOperation,
    String(c.startNs),
    String(c.endNs),
    c.host,
    c.mode,
    c.clientHost,
    c.answers,
    String(c.skewNs),
    c.wrappers,
  ]);

describe('calls and edges SQL equal the TypeScript reference', () => {
  let store: Store;
  let close: () => Promise<void>;
  let spans: SpanRecord[];
  let calls: Call[];

  beforeAll(async () => {
    ({ store, close } = await openTempStore('calls-sql'));
    spans = callShapes(5, REQUESTS);
    await insertSpans(store, spans);
    const lo = FROM - EDGE_SLACK_NS;
    const hi = TO + EDGE_SLACK_NS;
    calls = extractCalls(dedupeSpans(spans.filter((s) => s.startNs >= lo && s.startNs < hi)).spans);
  }, 60_000);
  afterAll(async () => {
    await close();
  });

  it('the generated calls cover every rule', () => {
    const vias = new Set(calls.map((c) => c.via));
    expect([...vias].sort()).toEqual(['client', 'cross-service', 'internal', 'producer', 'server']);
    expect(new Set(calls.map((c) => c.wrappers))).toEqual(new Set([0, 1, 2, 3]));
    expect(calls.some((c) => c.skewNs > 0n)).toBe(true);
    expect(calls.some((c) => c.answers === 2)).toBe(true);
    expect(calls.some((c) => c.callerService === '')).toBe(true);
    expect(calls.some((c) => c.host === 'unknown')).toBe(true);
    expect(dedupeSpans(spans).duplicates).toBeGreaterThan(0);
    const structures = new Set(groupRequestEdges(calls).map((e) => e.structure));
    expect([...structures].sort()).toEqual(['parallel', 'pool', 'sequential', 'single']);
  });

  it('finds the same calls', async () => {
    const rows = await store.query<Record<string, string | number>>(
      withCtes(
        callCtes({ fromNs: FROM, toNs: TO }),
        sql`SELECT traceId, callerSpanId, callerService, callerOperation, toString(callerDurationNs) AS callerDurationNs,
  spanId, leafService, leafOperation, toString(startNs) AS startNs, toString(endNs) AS endNs, host, mode, clientHost,
  answers, toString(skewNs) AS skewNs, wrappers FROM calls`,
      ),
    );
    const got = rows
      .map((r) =>
        JSON.stringify([
          r.traceId,
          r.callerSpanId,
          r.callerService,
          r.callerOperation,
          r.callerDurationNs,
          r.spanId,
          r.leafService,
          r.leafOperation,
          r.startNs,
          r.endNs,
          r.host,
          r.mode,
          r.clientHost,
          r.answers,
          r.skewNs,
          r.wrappers,
        ]),
      )
      .sort();
    // The calls of the traces with a span starting in the range (calls.ts: the margins are read
    // for those only); the margins hold others, which the SQL leaves out.
    const inRange = new Set(
      spans.filter((s) => s.startNs >= FROM && s.startNs < TO).map((s) => s.traceId),
    );
    const want = calls.filter((c) => inRange.has(c.traceId));
    expect(want.length).toBeLessThan(calls.length);
    expect(got).toEqual(want.map(callRow).sort());
  });

  for (const cache of [false, true])
    it(`aggregates every edge as the reference does (${cache ? 'stored' : 'live'})`, async () => {
      if (cache) {
        const built = await materializeFanouts(store, {
          fromNs: FROM,
          toNs: TO,
          nowNs: TO + 10n ** 12n,
        });
        expect(built.chunks).toBeGreaterThan(0);
        expect(await cacheCovers(store, { fromNs: FROM, toNs: TO })).toBe(true);
      }
      const got = await selectEdges(store, { fromNs: FROM, toNs: TO }, { cache });
      const want = summarizeEdges(groupRequestEdges(calls), { fromNs: FROM, toNs: TO });
      expect(got.map((e) => [e.parentOperation, e.leafOperation, e.requests])).toEqual(
        want.map((e) => [e.parentOperation, e.leafOperation, e.requests]),
      );
      for (const [i, w] of want.entries()) {
        const g = got[i];
        expect(g).toBeDefined();
        if (!g) continue;
        const { callLatency, shareOfParent, queueWaitMs, ...rest } = w;
        const { callLatency: gl, shareOfParent: gs, queueWaitMs: gq, ...grest } = g;
        expect(grest).toEqual(rest);
        for (const [a, b] of [
          [gl, callLatency],
          [gs, shareOfParent],
          [gq, queueWaitMs],
        ] as const) {
          expect(a === undefined).toBe(b === undefined);
          if (!a || !b) continue;
          for (const k of ['p50', 'p95', 'p99', 'p999'] as const) expect(a[k]).toBeCloseTo(b[k], 9);
        }
      }
      const route = want.find(
        (e) => e.leafService === 'route' && e.parentOperation === 'HTTP GET /dispatch',
      );
      expect(route?.structure).toBeDefined();
    });

  it('counts duplicates and skew pairs as the reference does', async () => {
    const inRange = spans.filter((s) => s.startNs >= FROM && s.startNs < TO);
    expect(await selectDuplicates(store, { fromNs: FROM, toNs: TO })).toBe(
      dedupeSpans(inRange).duplicates,
    );
    // Skew of the calls of the requests in range (first call's start in [from, to)).
    const want = skewPairs(
      groupRequestEdges(calls)
        .filter((e) => e.firstStartNs >= FROM && e.firstStartNs < TO)
        .flatMap((e) => e.calls),
    );
    expect(want.length).toBeGreaterThan(0);
    expect(await selectSkew(store, { fromNs: FROM, toNs: TO }, { cache: false })).toEqual(
      await selectSkew(store, { fromNs: FROM, toNs: TO }),
    );
    const got = await selectSkew(store, { fromNs: FROM, toNs: TO });
    expect(got.map((p) => [p.clientHost, p.serverHost, p.calls])).toEqual(
      want.map((p) => [p.clientHost, p.serverHost, p.calls]),
    );
    for (const [i, p] of want.entries()) expect(got[i]?.maxMs).toBeCloseTo(p.maxMs, 9);
  });
});
