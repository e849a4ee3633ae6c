import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractCalls, type Call, type SpanRecord } from '@tailscope/analysis';
import { dedupeSpans, groupRequestEdges, summarizeEdges } from '@tailscope/analysis/testing';
import { presetSpec, type ScenarioTruth } from '@tailscope/tracegen';
import type { Store } from '../src/store';
import { callCtes } from '../src/store/sql/calls';
import { selectDuplicates, selectEdges } from '../src/store/edges';
import { cacheCovers, materializeFanouts } from '../src/store/fanouts';
import { withCtes } from '../src/store/fanouts/sql';
import { sql } from '../src/store/sql/template';
import { ingestScenario, openTempStore } from './analysis-support';

/**
 * The calls and edges SQL against the TypeScript reference on tracegen's `microservices`
 * application (issue #12: wrappers, INTERNAL HTTP calls, a pool, a parallel fan-out, a
 * sequential loop, duplicates, a producer with two consumers, skew, ms-truncated times). The
 * reference reads the spans as the engine stores them, so both see the same input; the range
 * holds every span, so no request is cut at an edge. Quantiles compared to 1e-9.
 */

const REQUESTS = 300;
const START = '2026-03-01T00:00:00Z';

interface Row {
  TraceId: string;
  SpanId: string;
  ParentSpanId: string;
  SpanKind: string;
  ServiceName: string;
  SpanName: string;
  StartNs: string;
  Duration: string;
  ResourceAttributes: Record<string, string>;
  SpanAttributes: Record<string, string>;
}

const callKey = (c: Omit<Call, 'attributes' | 'via' | 'callerStartNs'>): string =>
  JSON.stringify([
    c.traceId,
    c.callerSpanId,
    c.callerService,
    c.callerOperation,
    c.spanId,
    c.leafService,
    c.leafOperation,
    String(c.startNs),
    String(c.endNs),
    c.host,
    c.answers,
    String(c.skewNs),
    c.wrappers,
  ]);

describe('calls and edges SQL equal the reference on the microservices preset', () => {
  let store: Store;
  let close: () => Promise<void>;
  let truth: ScenarioTruth;
  let spans: SpanRecord[];
  let calls: Call[];
  let fromNs: bigint;
  let toNs: bigint;

  beforeAll(async () => {
    ({ store, close } = await openTempStore('calls-sql-preset'));
    ({ truth } = await ingestScenario(store, presetSpec('microservices'), {
      requests: REQUESTS,
      seed: 7,
      start: START,
    }));
    const rows = await store.query<Row>(sql`
      SELECT TraceId, SpanId, ParentSpanId, SpanKind, ServiceName, SpanName,
        toString(toUnixTimestamp64Nano(Timestamp)) AS StartNs, toString(Duration) AS Duration,
        ResourceAttributes, SpanAttributes
      FROM otel_traces`);
    spans = rows.map((r) => ({
      traceId: r.TraceId,
      spanId: r.SpanId,
      parentSpanId: r.ParentSpanId,
      kind: r.SpanKind,
      service: r.ServiceName,
      name: r.SpanName,
      startNs: BigInt(r.StartNs),
      durationNs: BigInt(r.Duration),
      resource: r.ResourceAttributes,
      attributes: r.SpanAttributes,
    }));
    const starts = spans.map((s) => s.startNs);
    fromNs = starts.reduce((a, b) => (b < a ? b : a)) - 1_000_000_000n;
    toNs = starts.reduce((a, b) => (b > a ? b : a)) + 1_000_000_000n;
    calls = extractCalls(dedupeSpans(spans).spans);
  }, 120_000);
  afterAll(async () => {
    await close();
  });

  it('the preset holds every structure the issue names', () => {
    const structures = new Set(groupRequestEdges(calls).map((e) => e.structure));
    expect([...structures].sort()).toEqual(['parallel', 'pool', 'sequential', 'single']);
    expect(calls.some((c) => c.wrappers > 0)).toBe(true);
    expect(calls.some((c) => c.skewNs > 0n)).toBe(true);
    expect(dedupeSpans(spans).duplicates).toBeGreaterThan(0);
    expect(truth.app).toBeDefined();
  });

  it('finds the same calls', async () => {
    const rows = await store.query<Record<string, string | number>>(
      withCtes(
        callCtes({ fromNs, toNs }),
        sql`SELECT traceId, callerSpanId, callerService, callerOperation, spanId, leafService,
  leafOperation, toString(startNs) AS startNs, toString(endNs) AS endNs, host, answers,
  toString(skewNs) AS skewNs, wrappers FROM calls`,
      ),
    );
    const got = rows
      .map((r) =>
        JSON.stringify([
          r.traceId,
          r.callerSpanId,
          r.callerService,
          r.callerOperation,
          r.spanId,
          r.leafService,
          r.leafOperation,
          r.startNs,
          r.endNs,
          r.host,
          r.answers,
          r.skewNs,
          r.wrappers,
        ]),
      )
      .sort();
    expect(got.length).toBeGreaterThan(REQUESTS * 10);
    expect(got).toEqual(calls.map(callKey).sort());
  });

  for (const cache of [false, true])
    it(`aggregates every edge, and counts duplicates, as the reference does (${cache ? 'stored in slices' : 'live'})`, async () => {
      if (cache) {
        // Chunks far above 2,000 spans: each is built in time slices, as a busy store's are.
        const built = await materializeFanouts(
          store,
          { fromNs, toNs, nowNs: toNs + 10n ** 12n },
          { maxRunSpans: 2000n },
        );
        expect(built.chunks).toBeGreaterThan(0);
        expect(await cacheCovers(store, { fromNs, toNs })).toBe(true);
      }
      const got = await selectEdges(store, { fromNs, toNs }, { cache });
      const want = summarizeEdges(groupRequestEdges(calls), { fromNs, toNs });
      expect(
        got.map((e) => [e.parentOperation, e.leafService, e.leafOperation, e.structure]),
      ).toEqual(want.map((e) => [e.parentOperation, e.leafService, e.leafOperation, e.structure]));
      for (const [i, w] of want.entries()) {
        const g = got[i];
        if (!g) throw new Error(`edge ${String(i)} missing`);
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
      // The planted structures (tracegen's truth.app) are what both found.
      const planted = truth.app?.edges ?? [];
      expect(planted.length).toBeGreaterThan(3);
      for (const e of planted) {
        const name = `${e.parentOperation} -> ${e.leafService} ${e.leafOperation}`;
        const found = got.find(
          (g) =>
            g.parentOperation === e.parentOperation &&
            g.leafService === e.leafService &&
            g.leafOperation === e.leafOperation,
        );
        expect(found?.structure, name).toBe(e.structure);
        if (e.structure === 'pool') expect(found?.poolSize, name).toBe(e.concurrency);
        expect(found?.callsPerRequest.max, name).toBe(e.callsPerRequest);
      }
      expect(await selectDuplicates(store, { fromNs, toNs })).toBe(dedupeSpans(spans).duplicates);
    });
});
