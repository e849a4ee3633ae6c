import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CriticalPathResponse,
  EdgesResponse,
  EpisodesResponse,
  FanoutsResponse,
  HostsResponse,
  StragglersResponse,
  TracesResponse,
  WhatIfResponse,
} from '@tailscope/contracts';
import { unpackLeafCalls } from '@tailscope/analysis';
import { buildStoreApi, type Api } from '../src/server/app';
import type { Store } from '../src/store';
import { queryBudgetFromEnv } from '../src/store/engine/budget';
import { sql } from '../src/store/sql/template';
import { openTempStore } from './analysis-support';

/**
 * One number per question (issue 24): every quantity that more than one endpoint shows is read
 * through each of them and compared: requests and a call's p99 per edge, the tail threshold,
 * tail fan-outs and stragglers, calls per host, leaf calls, the recorded p99 the what-if starts
 * from, requests per root, episodes. Run on a tracegen preset and on a recorded demo run.
 */

/** Fan-out operations checked one by one at most (each costs a few answers). */
const MAX_OPS = 6;
/** Generous: a busy 2-core machine makes each answer slow; nothing here asserts time. */
const TIMEOUT_MS = 300_000;

type Op = FanoutsResponse['fanouts'][number];

export interface ConsistencyData {
  /** Fills the (migrated, empty) store. */
  load(store: Store): Promise<void>;
  /** Requests of the busiest root, when the data set knows it. */
  rootRequests?: number;
  /** Whether the data holds a planted slow fault (episodes must then find it). */
  fault: boolean;
}

export function describeConsistency(name: string, data: ConsistencyData): void {
  describe(`every endpoint gives the same number for the same quantity: ${name}`, () => {
    let store: Store;
    let close: () => Promise<void>;
    let api: Api;
    let range = '';
    let fanouts: FanoutsResponse;
    let edges: EdgesResponse;

    const get = async <T>(url: string): Promise<T> => {
      const res = await api.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      return res.json();
    };
    const leafQuery = (o: { leafService: string; leafOperation: string }) =>
      `leafService=${encodeURIComponent(o.leafService)}&leafOperation=${encodeURIComponent(o.leafOperation)}`;
    const edgeOf = (o: Op) => {
      const e = edges.edges.find(
        (x) =>
          x.parentService === o.parentService &&
          x.parentOperation === o.parentOperation &&
          x.leafService === o.leafService &&
          x.leafOperation === o.leafOperation,
      );
      if (!e) throw new Error(`no edge for ${o.parentOperation} -> ${o.leafOperation}`);
      return e;
    };
    /** Operations whose leaf no other operation shares: leaf-keyed answers are theirs alone. */
    const ownLeaf = (): Op[] =>
      fanouts.fanouts
        .filter(
          (o) =>
            fanouts.fanouts.filter(
              (x) => x.leafService === o.leafService && x.leafOperation === o.leafOperation,
            ).length === 1,
        )
        .slice(0, MAX_OPS);

    beforeAll(async () => {
      // The checks judge numbers, not speed: on a busy machine an analysis may wait for its
      // slot longer than the default 30 s budget (the what-if answered 503 at load ~20).
      ({ store, close } = await openTempStore(`consistency-${name}`, {
        budget: queryBudgetFromEnv({ TAILSCOPE_QUERY_TIMEOUT_SECONDS: '600' }),
      }));
      await data.load(store);
      const [r] = await store.query<{ from: string; to: string }>(sql`
        SELECT toString(intDiv(toUnixTimestamp64Nano(min(Timestamp)), 1000000) - 1000) AS from,
          toString(intDiv(toUnixTimestamp64Nano(max(Timestamp)), 1000000) + 60000) AS to
        FROM otel_traces`);
      range = `from=${r?.from ?? ''}&to=${r?.to ?? ''}`;
      api = await buildStoreApi(store);
      [fanouts, edges] = await Promise.all([
        get<FanoutsResponse>(`/api/v1/fanouts?${range}`),
        get<EdgesResponse>(`/api/v1/edges?${range}`),
      ]);
    }, TIMEOUT_MS);
    afterAll(async () => {
      await api.close();
      await close();
    });

    it('has fan-outs, and every fan-out operation names its parent', () => {
      expect(fanouts.fanouts.length).toBeGreaterThan(0);
      for (const o of fanouts.fanouts) {
        expect(o.parentService).not.toBe('');
        expect(o.parentOperation).not.toBe('');
      }
      expect(ownLeaf().length).toBeGreaterThan(0);
    });

    it('a fan-out edge: requests and the call p99 agree between /fanouts and /edges', () => {
      for (const o of fanouts.fanouts) {
        const e = edgeOf(o);
        const fanoutShare = (e.structureShares?.parallel ?? 0) + (e.structureShares?.pool ?? 0);
        expect(o.requests).toBe(Math.round(e.requests * fanoutShare));
        // The default amplification threshold is the call-latency p99: where every request of
        // the edge fans out, the same calls, the same estimator, the same number.
        if (fanoutShare === 1)
          expect(o.amplification.thresholdMs).toBeCloseTo(e.callLatency.p99, 6);
      }
    });

    it(
      'tail fan-outs, stragglers, hosts and leaf calls agree between endpoints',
      async () => {
        for (const o of ownLeaf()) {
          const s = await get<StragglersResponse>(
            `/api/v1/stragglers?${range}&${leafQuery(o)}&by=host,sharing_mode,background`,
          );
          expect(s.fanouts).toBe(o.requests);
          // The tail threshold is the all-leaves p99 Table 1 shows.
          expect(s.tailThresholdMs).toBeCloseTo(o.table1.allLeaves.p99, 6);
          for (const d of ['host', 'sharing_mode', 'background']) {
            const rows = s.rows.filter((r) => r.dimension === d);
            expect(rows.reduce((n, r) => n + r.stragglers, 0)).toBe(s.tailFanouts);
            expect(rows.reduce((n, r) => n + r.calls, 0)).toBe(s.calls);
          }
          // A value with no straggler has no risk of its own to report, and is never a cause.
          for (const r of s.rows.filter((x) => x.stragglers === 0)) {
            expect(r.riskRatio).toBe(0);
            expect(r.cause).toBe(false);
          }
          for (const r of s.rows.filter((x) => x.cause))
            expect(r.p99DropMs ?? 0).toBeGreaterThan(0);
          // Amplification's observed probability is its tail fan-outs over its fan-outs.
          expect(o.amplification.fanouts).toBe(o.requests);
          expect(o.amplification.observedTailProbability).toBeCloseTo(
            o.amplification.tailFanouts / o.amplification.fanouts,
            12,
          );
          // Calls per host: the heatmap's series against attribution's host rows.
          const h = await get<HostsResponse>(`/api/v1/hosts?${range}&${leafQuery(o)}`);
          const byHost = new Map(
            s.rows.filter((r) => r.dimension === 'host').map((r) => [r.value, r.calls]),
          );
          expect(new Map(h.hosts.map((x) => [x.host, x.calls]))).toEqual(byHost);
          // The what-if worker's leaf calls are the same fan-outs and calls.
          const leaves = await api.inject({
            method: 'GET',
            url: `/api/v1/leaves?${range}&${leafQuery(o)}`,
          });
          expect(leaves.statusCode).toBe(200);
          const { calls } = unpackLeafCalls(leaves.rawPayload);
          expect(calls.fanoutStartMs.length).toBe(o.requests);
          expect(calls.durationMs.length).toBe(s.calls);
        }
      },
      TIMEOUT_MS,
    );

    it(
      "the what-if's recorded p99 is Table 1's all-leaves p99",
      async () => {
        const o = ownLeaf()[0];
        if (!o) throw new Error('no fan-out operation');
        const [from, to] = range.split('&').map((kv) => Number(kv.split('=')[1]));
        const res = await api.inject({
          method: 'POST',
          url: '/api/v1/whatif',
          payload: {
            from,
            to,
            leafService: o.leafService,
            leafOperation: o.leafOperation,
            policy: { kind: 'hedge', delayPercentile: 95 },
            seed: 1,
          },
        });
        expect(res.statusCode, res.body).toBe(200);
        const w = res.json<WhatIfResponse>();
        expect(w.requests).toBe(o.requests);
        expect(w.baseline.p99).toBeCloseTo(o.table1.allLeaves.p99, 6);
        expect(w.baseline.p50).toBeCloseTo(o.table1.allLeaves.p50, 6);
      },
      TIMEOUT_MS,
    );

    it(
      'requests of the root agree between /criticalpath, /traces and /edges',
      async () => {
        const cp = await get<CriticalPathResponse>(`/api/v1/criticalpath?${range}`);
        if (data.rootRequests !== undefined) expect(cp.requests).toBe(data.rootRequests);
        expect(cp.requests).toBeGreaterThan(0);
        expect(cp.roots?.[0]).toEqual({
          service: cp.service,
          operation: cp.operation,
          requests: cp.requests,
        });
        // Background activity (GC, compaction) is never a request root.
        const stored = await store.query<{ service: string; name: string }>(sql`
        SELECT DISTINCT ServiceName AS service, SpanName AS name FROM otel_traces
        WHERE SpanAttributes['background.activity'] != ''`);
        for (const root of cp.roots ?? [])
          expect(stored).not.toContainEqual({ service: root.service, name: root.operation });
        const fromRoot = edges.edges.filter(
          (e) => e.parentService === cp.service && e.parentOperation === cp.operation,
        );
        expect(fromRoot.length).toBeGreaterThan(0);
        for (const e of fromRoot) expect(e.requests).toBe(cp.requests);
        const t = await get<TracesResponse>(
          `/api/v1/traces?${range}&limit=1000&service=${encodeURIComponent(cp.service)}&operation=${encodeURIComponent(cp.operation)}`,
        );
        const rooted = t.traces.filter(
          (x) => x.rootService === cp.service && x.rootOperation === cp.operation,
        );
        expect(rooted).toHaveLength(Math.min(cp.requests, 1000));
        // The default search rows are requests, and the busiest root's among them.
        const newest = await get<TracesResponse>(`/api/v1/traces?${range}&limit=100`);
        const roots = new Set((cp.roots ?? []).map((x) => `${x.service}/${x.operation}`));
        for (const x of newest.traces)
          expect(roots).toContain(`${x.rootService}/${x.rootOperation}`);
      },
      TIMEOUT_MS,
    );

    it(
      'episodes: one entry per fault, the same with and without a service filter',
      async () => {
        const all = await get<EpisodesResponse>(`/api/v1/episodes?${range}`);
        if (data.fault) expect(all.episodes.length).toBeGreaterThan(0);
        // An edge episode over the same calls and window as a host episode is that host's entry.
        for (const edge of all.episodes.filter((e) => e.kind === 'edge'))
          expect(
            all.episodes.some(
              (h) =>
                h.kind !== 'edge' &&
                h.service === edge.service &&
                h.fromMs === edge.fromMs &&
                h.toMs === edge.toMs &&
                h.calls === edge.calls,
            ),
          ).toBe(false);
        const services = [...new Set(all.episodes.map((e) => e.service))];
        for (const service of services) {
          const one = await get<EpisodesResponse>(
            `/api/v1/episodes?${range}&service=${encodeURIComponent(service)}`,
          );
          const key = (e: EpisodesResponse['episodes'][number]) =>
            JSON.stringify([e.kind, e.host, e.parentOperation, e.operation, e.fromMs, e.toMs]);
          expect(one.episodes.map(key).sort()).toEqual(
            all.episodes
              .filter((e) => e.service === service)
              .map(key)
              .sort(),
          );
        }
        // Adjacent or overlapping windows of one series are one episode.
        const series = new Map<string, { fromMs: number; toMs: number }[]>();
        for (const e of all.episodes) {
          const k = JSON.stringify([
            e.kind,
            e.service,
            e.host,
            e.parentService,
            e.parentOperation,
            e.operation,
          ]);
          series.set(k, [...(series.get(k) ?? []), e]);
        }
        for (const list of series.values()) {
          const sorted = [...list].sort((a, b) => a.fromMs - b.fromMs);
          for (let i = 1; i < sorted.length; i++)
            expect(sorted[i]?.fromMs ?? 0).toBeGreaterThan(sorted[i - 1]?.toMs ?? 0);
        }
      },
      TIMEOUT_MS,
    );
  });
}
