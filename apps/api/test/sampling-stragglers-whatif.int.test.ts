import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostsResponse, StragglersResponse, WhatIfResponse } from '@tailscope/contracts';
import {
  SeededRandom,
  simulateWhatIf,
  unpackLeafCalls,
  type SpanRecord,
} from '@tailscope/analysis';
import { buildStoreApi, type Api } from '../src/server/app';
import type { Store } from '../src/store';
import { materializeFanouts } from '../src/store/fanouts';
import { openTempStore, spanRow, T0_NS } from './analysis-support';

/**
 * Stragglers, hosts and what-if weighted by sampling (docs/analysis.md "Sampling"), against the
 * same endpoints over the whole population. 3,000 requests (front GET /a fanning out 8 calls to
 * kv get) are stored twice: whole and without TraceState a day later (the truth), and sampled
 * at T0. A third of them are fast (1-3 ms, calls on kv-0..kv-7) and always kept without
 * TraceState; two thirds are slow (10-30 ms, two calls on each of kv-0..kv-3, kv-2's calls 3x
 * slower one time in ten) and kept with probability 1/4 (seeded), carrying `ot=th:c`
 * (adjusted count 4). Unweighted, the stored sample halves the slow share: kv-0's traffic
 * share falls from 5/24 to 1/6 and its p50 from ~17.5 ms to the gap between the groups.
 *
 * Tolerance: 8% relative for counts, shares and quantiles of the bulk. The slow requests kept
 * are Binomial(2000, 1/4): sd 3.9% of their weighted count, so 8% is two sd of the worst case;
 * the seeds are fixed. Tail figures (p99s) rest on about 20 stored tail fan-outs: 15%.
 */

const MS = 1_000_000n;
const REQUESTS = 3000;
const WIDTH = 8;
const GAP_MS = 5;
const DAY_NS = 86_400_000n * MS;
const FULL_NS = T0_NS + DAY_NS;
const TOL = 0.08;
const TAIL_TOL = 0.15;

interface Stored {
  span: SpanRecord;
  traceState: string;
}

/** One request's spans: the root, then per call a CLIENT span and its SERVER answer. */
function request(
  trace: number,
  t0: bigint,
  calls: readonly { ms: number; host: string }[],
  traceState: string,
): Stored[] {
  const traceId = trace.toString(16).padStart(32, '0');
  const id = (prefix: string) => prefix.padEnd(4, '0') + trace.toString(16).padStart(12, '0');
  const span = (s: Omit<SpanRecord, 'traceId' | 'attributes'>): Stored => ({
    span: { ...s, traceId, attributes: {} },
    traceState,
  });
  const root = id('ffff');
  const slowest = Math.max(...calls.map((c) => c.ms));
  const out = [
    span({
      spanId: root,
      parentSpanId: '',
      kind: 'Server',
      service: 'front',
      name: 'GET /a',
      resource: { 'service.name': 'front', 'host.name': 'front-1' },
      startNs: t0,
      durationNs: BigInt(Math.round((2 + slowest) * 1e6)),
    }),
  ];
  calls.forEach((c, i) => {
    const dur = BigInt(Math.round(c.ms * 1e6));
    out.push(
      span({
        spanId: id(`c${i}`),
        parentSpanId: root,
        kind: 'Client',
        service: 'front',
        name: 'get',
        resource: { 'service.name': 'front', 'host.name': 'front-1' },
        startNs: t0 + MS,
        durationNs: dur,
      }),
      span({
        spanId: id(`s${i}`),
        parentSpanId: id(`c${i}`),
        kind: 'Server',
        service: 'kv',
        name: 'get',
        resource: { 'service.name': 'kv', 'host.name': c.host },
        startNs: t0 + MS + 100_000n,
        durationNs: dur - 200_000n,
      }),
    );
  });
  return out;
}

/** The whole population at FULL_NS and the sampled one at T0_NS. */
function scenario(): { rows: Stored[]; keptSlow: number } {
  const latency = new SeededRandom(21);
  const keep = new SeededRandom(22);
  const rows: Stored[] = [];
  let keptSlow = 0;
  for (let q = 0; q < REQUESTS; q++) {
    const slow = q % 3 !== 0;
    const calls = Array.from({ length: WIDTH }, (_, i) => {
      if (!slow) return { ms: 1 + 2 * latency.float(), host: `kv-${i}` };
      const host = `kv-${i % 4}`;
      const ms = 10 + 20 * latency.float();
      return { ms: host === 'kv-2' && latency.float() < 0.1 ? 3 * ms : ms, host };
    });
    const offset = BigInt(q * GAP_MS) * MS;
    rows.push(...request(1_000_000 + q, FULL_NS + offset, calls, ''));
    if (slow && keep.float() >= 0.25) continue;
    if (slow) keptSlow++;
    rows.push(...request(q + 1, T0_NS + offset, calls, slow ? 'ot=th:c' : ''));
  }
  return { rows, keptSlow };
}

describe('stragglers, hosts and what-if weighted by sampling', () => {
  let store: Store;
  let close: () => Promise<void>;
  let api: Api;
  const s = scenario();
  const fromMs = Number(T0_NS / MS);
  const sampled = `from=${fromMs}&to=${fromMs + 60_000}`;
  const full = `from=${fromMs + 86_400_000}&to=${fromMs + 86_400_000 + 60_000}`;

  beforeAll(async () => {
    ({ store, close } = await openTempStore('sampling-stragglers'));
    for (let i = 0; i < s.rows.length; i += 20_000) {
      const body = s.rows
        .slice(i, i + 20_000)
        .map((r) => JSON.stringify({ ...JSON.parse(spanRow(r.span)), TraceState: r.traceState }))
        .join('\n');
      await store.client.command({ query: `INSERT INTO otel_traces FORMAT JSONEachRow\n${body}` });
    }
    api = await buildStoreApi(store);
  }, 120_000);
  afterAll(async () => {
    await api.close();
    await close();
  });

  const get = async <T>(url: string): Promise<T> => {
    const res = await api.inject({ method: 'GET', url });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const whatIf = async (range: string): Promise<WhatIfResponse> => {
    const [from, to] = range.split('&').map((p) => Number(p.split('=')[1]));
    const res = await api.inject({
      method: 'POST',
      url: '/api/v1/whatif',
      payload: {
        leafService: 'kv',
        leafOperation: 'get',
        from,
        to,
        policy: { kind: 'good-enough', fraction: 0.75 },
        seed: 3,
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const relative = (got: number, want: number) => Math.abs(got - want) / Math.abs(want);
  const leaf = 'leafService=kv&leafOperation=get';

  it('keeps a quarter of the slow requests', () => {
    // Binomial(2000, 1/4): 500 +- 19.4.
    expect(s.keptSlow).toBeGreaterThan(440);
    expect(s.keptSlow).toBeLessThan(560);
  });

  it('weights the straggler attribution back to the population', async () => {
    const weighted = await get<StragglersResponse>(`/api/v1/stragglers?${sampled}&${leaf}`);
    const truth = await get<StragglersResponse>(`/api/v1/stragglers?${full}&${leaf}`);
    expect(weighted.sampling).toEqual({
      weighted: true,
      spansWithoutSamplingInfo: 1000 / (1000 + s.keptSlow),
    });
    expect(truth.sampling?.weighted).toBe(false);
    expect(truth.fanouts).toBe(REQUESTS);
    // Weighted fan-out count: every fast one, 4 x each kept slow one.
    expect(weighted.fanouts).toBe(1000 + 4 * s.keptSlow);
    expect(relative(weighted.fanouts, truth.fanouts)).toBeLessThan(TOL);
    expect(relative(weighted.calls, truth.calls)).toBeLessThan(TOL);
    expect(relative(weighted.tailThresholdMs ?? 0, truth.tailThresholdMs ?? 1)).toBeLessThan(
      TAIL_TOL,
    );
    const row = (r: StragglersResponse, host: string) =>
      r.rows.find((x) => x.dimension === 'host' && x.value === host);
    const kv0 = row(weighted, 'kv-0');
    const kv0Truth = row(truth, 'kv-0');
    if (!kv0 || !kv0Truth) throw new Error('no kv-0 row');
    expect(kv0Truth.trafficShare).toBeCloseTo(5 / 24, 12);
    expect(relative(kv0.trafficShare, kv0Truth.trafficShare)).toBeLessThan(TOL);
    expect(relative(kv0.calls, kv0Truth.calls)).toBeLessThan(TOL);
    // The sick host: its share of the tail stragglers, weighted, is the population's.
    const kv2 = row(weighted, 'kv-2');
    const kv2Truth = row(truth, 'kv-2');
    expect(kv2Truth?.stragglerShare).toBeGreaterThan(0.8);
    expect(relative(kv2?.stragglerShare ?? 0, kv2Truth?.stragglerShare ?? 1)).toBeLessThan(TOL);
    expect(kv2?.cause).toBe(true);
  });

  it('weights host windows back to the population', async () => {
    const q = `${leaf}&windowSeconds=3600`;
    const weighted = await get<HostsResponse>(`/api/v1/hosts?${sampled}&${q}`);
    const truth = await get<HostsResponse>(`/api/v1/hosts?${full}&${q}`);
    expect(weighted.sampling?.weighted).toBe(true);
    const host = (r: HostsResponse, name: string) => r.hosts.find((h) => h.host === name);
    for (const name of ['kv-0', 'kv-2', 'kv-5']) {
      const w = host(weighted, name);
      const t = host(truth, name);
      if (!w || !t) throw new Error(`no ${name}`);
      expect(w.windows).toHaveLength(1);
      expect(t.windows).toHaveLength(1);
      expect(relative(w.calls, t.calls)).toBeLessThan(TOL);
      expect(relative(w.windows[0]?.p50Ms ?? 0, t.windows[0]?.p50Ms ?? 1)).toBeLessThan(TOL);
    }
    // kv-0's p50 sits in the slow group (4 of its 5 population calls are slow).
    expect(host(truth, 'kv-0')?.windows[0]?.p50Ms).toBeGreaterThan(15);
    expect(host(weighted, 'kv-0')?.windows[0]?.p50Ms).toBeGreaterThan(15);
    const p99 = (r: HostsResponse) => host(r, 'kv-2')?.windows[0]?.p99Ms ?? 0;
    expect(relative(p99(weighted), p99(truth))).toBeLessThan(TAIL_TOL);
    expect(relative(weighted.fleet[0]?.calls ?? 0, truth.fleet[0]?.calls ?? 1)).toBeLessThan(TOL);
  });

  it('weights the what-if baseline, replay and whole requests back to the population', async () => {
    const weighted = await whatIf(sampled);
    const truth = await whatIf(full);
    expect(weighted.sampling?.weighted).toBe(true);
    expect(truth.sampling?.weighted).toBe(false);
    for (const p of ['p50', 'p90'] as const) {
      expect(relative(weighted.baseline[p], truth.baseline[p])).toBeLessThan(TOL);
      expect(relative(weighted.whatIf[p].value, truth.whatIf[p].value)).toBeLessThan(TOL);
      expect(
        relative(weighted.request?.baseline[p] ?? 0, truth.request?.baseline[p] ?? 1),
      ).toBeLessThan(TOL);
      expect(
        relative(weighted.request?.whatIf[p].value ?? 0, truth.request?.whatIf[p].value ?? 1),
      ).toBeLessThan(TOL);
      // The interval holds the value and is wider than the population's (fewer requests).
      const e = weighted.whatIf[p];
      expect(e.low).toBeLessThanOrEqual(e.value);
      expect(e.high).toBeGreaterThanOrEqual(e.value);
    }
    expect(relative(weighted.baseline.p99, truth.baseline.p99)).toBeLessThan(TAIL_TOL);
  });

  it('packs the weights for the browser, whose replay then agrees with the server', async () => {
    const res = await api.inject({ method: 'GET', url: `/api/v1/leaves?${sampled}&${leaf}` });
    expect(res.statusCode).toBe(200);
    const { calls, meta } = unpackLeafCalls(res.rawPayload);
    expect(meta.sampling).toMatchObject({ weighted: true });
    expect(calls.weights).toHaveLength(1000 + s.keptSlow);
    expect(new Set(calls.weights)).toEqual(new Set([1, 4]));
    const browser = simulateWhatIf(calls, { kind: 'good-enough', fraction: 0.75 }, { seed: 3 });
    const server = await whatIf(sampled);
    expect(browser.baseline).toEqual(server.baseline);
    expect(browser.whatIf.p50.value).toBe(server.whatIf.p50.value);
  });

  it('weights stragglers, hosts and leaves from stored fan-out chunks as it does live', async () => {
    const urls = [
      `/api/v1/stragglers?${sampled}&${leaf}`,
      `/api/v1/hosts?${sampled}&${leaf}&windowSeconds=3600`,
    ];
    const live = await Promise.all(urls.map((u) => get<unknown>(u)));
    const leavesLive = await api.inject({
      method: 'GET',
      url: `/api/v1/leaves?${sampled}&${leaf}`,
    });
    const toNs = T0_NS + 60_000n * MS;
    const built = await materializeFanouts(store, {
      fromNs: T0_NS,
      toNs,
      nowNs: toNs + 10n ** 12n,
    });
    expect(built.chunks).toBeGreaterThan(0);
    const stored = await Promise.all(urls.map((u) => get<unknown>(u)));
    expect(stored).toEqual(live);
    const leavesStored = await api.inject({
      method: 'GET',
      url: `/api/v1/leaves?${sampled}&${leaf}`,
    });
    expect(unpackLeafCalls(leavesStored.rawPayload).calls.weights).toEqual(
      unpackLeafCalls(leavesLive.rawPayload).calls.weights,
    );
  });
});
