import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CriticalPathResponse,
  EdgesResponse,
  EpisodesResponse,
  FanoutsResponse,
  HostsResponse,
  StragglersResponse,
  TracesResponse,
} from '@tailscope/contracts';
import { presetSpec } from '@tailscope/tracegen';
import { buildStoreApi, type Api } from '../src/server/app';
import type { Store } from '../src/store';
import { sql } from '../src/store/sql/template';
import { ingestScenario, openTempStore } from './analysis-support';

/**
 * One number per question (issue 24): on tracegen's `microservices` application every quantity
 * that more than one endpoint shows is read through each of them and compared: a call's p99 per
 * edge, request counts, tail fan-outs and stragglers, amplification, calls per host, episodes.
 * A reduced request count keeps the run well under a minute; the range holds every span.
 */

const REQUESTS = 2000;
const START = '2026-03-01T00:00:00Z';

describe('every endpoint gives the same number for the same quantity', () => {
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
  const edgeOf = (o: FanoutsResponse['fanouts'][number]) => {
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

  beforeAll(async () => {
    ({ store, close } = await openTempStore('consistency'));
    await ingestScenario(store, presetSpec('microservices'), {
      requests: REQUESTS,
      seed: 7,
      start: START,
    });
    const [r] = await store.query<{ from: string; to: string }>(sql`
      SELECT toString(intDiv(toUnixTimestamp64Nano(min(Timestamp)), 1000000) - 1000) AS from,
        toString(intDiv(toUnixTimestamp64Nano(max(Timestamp)), 1000000) + 1000) AS to
      FROM otel_traces`);
    range = `from=${r?.from ?? ''}&to=${r?.to ?? ''}`;
    api = await buildStoreApi(store);
    [fanouts, edges] = await Promise.all([
      get<FanoutsResponse>(`/api/v1/fanouts?${range}`),
      get<EdgesResponse>(`/api/v1/edges?${range}`),
    ]);
  }, 120_000);
  afterAll(async () => {
    await api.close();
    await close();
  });

  it('the preset has fan-outs, and every fan-out operation names its parent', () => {
    expect(fanouts.fanouts.length).toBeGreaterThan(0);
    for (const o of fanouts.fanouts) expect(o.parentService).not.toBe('');
  });

  it('a fan-out edge: requests and the call p99 agree between /fanouts and /edges', () => {
    for (const o of fanouts.fanouts) {
      const e = edgeOf(o);
      const fanoutShare = (e.structureShares?.parallel ?? 0) + (e.structureShares?.pool ?? 0);
      expect(o.requests).toBe(Math.round(e.requests * fanoutShare));
      // The default amplification threshold is the call-latency p99: where every request of
      // the edge fans out, the same calls, the same estimator, the same number.
      if (fanoutShare === 1) expect(o.amplification.thresholdMs).toBeCloseTo(e.callLatency.p99, 6);
    }
  });

  it('tail fan-outs and stragglers agree between /fanouts, /stragglers and /hosts', async () => {
    for (const o of fanouts.fanouts) {
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
    }
  });

  it('requests of the root agree between /criticalpath, /traces and /edges', async () => {
    const cp = await get<CriticalPathResponse>(`/api/v1/criticalpath?${range}`);
    expect(cp.requests).toBe(REQUESTS);
    expect(cp.roots?.[0]).toEqual({
      service: cp.service,
      operation: cp.operation,
      requests: REQUESTS,
    });
    const fromRoot = edges.edges.filter(
      (e) => e.parentService === cp.service && e.parentOperation === cp.operation,
    );
    expect(fromRoot.length).toBeGreaterThan(0);
    for (const e of fromRoot) expect(e.requests).toBe(REQUESTS);
    const t = await get<TracesResponse>(`/api/v1/traces?${range}&limit=1000`);
    expect(t.traces).toHaveLength(Math.min(REQUESTS, 1000));
    expect(new Set(t.traces.map((x) => `${x.rootService}/${x.rootOperation}`))).toEqual(
      new Set([`${cp.service}/${cp.operation}`]),
    );
  });

  it('episodes: one entry per fault, the same through /episodes with and without a service', async () => {
    const all = await get<EpisodesResponse>(`/api/v1/episodes?${range}`);
    // The planted fault (the customer service's database) is found, once per set of calls.
    expect(all.episodes.length).toBeGreaterThan(0);
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
  });
});
