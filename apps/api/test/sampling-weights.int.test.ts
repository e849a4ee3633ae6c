import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CriticalPathResponse,
  EdgesResponse,
  FanoutsResponse,
  SamplingInfo,
} from '@tailscope/contracts';
import { quantileInclusive, SeededRandom } from '@tailscope/analysis';
import { buildStoreApi, type Api } from '../src/server/app';
import type { Store } from '../src/store';
import { materializeFanouts } from '../src/store/fanouts';
import { openTempStore, T0_NS } from './analysis-support';

/**
 * Sampling weights in the analysis answers (docs/analysis.md "Sampling"), against the truth of
 * an unsampled population. A population of 1,200 requests (front GET /a fanning out 8 parallel
 * calls to kv get): two thirds are slow (calls 10-30 ms) and are sampled at 50% with a seeded
 * RNG, their kept spans carrying `ot=th:8` (adjusted count 2); one third are fast (1-3 ms) and
 * all kept without TraceState. Unweighted, the stored data halves the slow share and the call
 * p50 falls from ~15 ms to the gap between the groups; weighted, counts and quantiles come back
 * to the population's within the stated tolerances (the sample's own noise: kept slow requests
 * are Binomial(800, 1/2), sd 2.4% of the population's 1,200 requests; the seed is fixed).
 */

const MS = 1_000_000n;
const REQUESTS = 1200;
const WIDTH = 8;
const GAP_MS = 5;
const FROM_MS = Number(T0_NS / MS);
const TO_MS = FROM_MS + REQUESTS * GAP_MS + 1000;
/** Unsampled requests only, an hour later. */
const LATE_NS = T0_NS + 3_600_000n * MS;
const LATE_FROM_MS = Number(LATE_NS / MS);
const LATE_REQUESTS = 50;

const nsText = (ns: bigint): string =>
  `${String(ns / 1_000_000_000n)}.${(ns % 1_000_000_000n).toString().padStart(9, '0')}`;

interface Span {
  trace: string;
  span: string;
  parent: string;
  kind: string;
  service: string;
  name: string;
  host: string;
  startNs: bigint;
  durationNs: bigint;
  traceState: string;
}

const row = (s: Span): string =>
  JSON.stringify({
    Timestamp: nsText(s.startNs),
    TraceId: s.trace,
    SpanId: s.span,
    ParentSpanId: s.parent,
    TraceState: s.traceState,
    SpanName: s.name,
    SpanKind: s.kind,
    ServiceName: s.service,
    ResourceAttributes: { 'service.name': s.service, 'host.name': s.host },
    SpanAttributes: {},
    Duration: s.durationNs.toString(),
    StatusCode: 'Unset',
  });

/** One request's spans: the root, then per call a CLIENT span and its SERVER answer. */
function request(trace: number, t0: bigint, callsMs: readonly number[], traceState: string) {
  const id = trace.toString(16).padStart(32, '0');
  const root = 'f'.repeat(4) + trace.toString(16).padStart(12, '0');
  const base = { trace: id, traceState };
  const spans: Span[] = [
    {
      ...base,
      span: root,
      parent: '',
      kind: 'Server',
      service: 'front',
      name: 'GET /a',
      host: 'front-1',
      startNs: t0,
      // The root ends 1 ms after its slowest call.
      durationNs: BigInt(Math.round((2 + Math.max(...callsMs)) * 1e6)),
    },
  ];
  callsMs.forEach((ms, i) => {
    const client = `c${i}`.padEnd(4, '0') + trace.toString(16).padStart(12, '0');
    const dur = BigInt(Math.round(ms * 1e6));
    spans.push(
      {
        ...base,
        span: client,
        parent: root,
        kind: 'Client',
        service: 'front',
        name: 'get',
        host: 'front-1',
        startNs: t0 + MS,
        durationNs: dur,
      },
      {
        ...base,
        span: `s${i}`.padEnd(4, '0') + trace.toString(16).padStart(12, '0'),
        parent: client,
        kind: 'Server',
        service: 'kv',
        name: 'get',
        host: `kv-${i}`,
        startNs: t0 + MS + 100_000n,
        durationNs: dur - 200_000n,
      },
    );
  });
  return spans;
}

/** The population, its truth, and the stored (sampled) spans. */
function scenario() {
  const latency = new SeededRandom(7);
  const keep = new SeededRandom(8);
  const callsMs: number[] = [];
  const allLeavesMs: number[] = [];
  const rootMs: number[] = [];
  const stored: Span[] = [];
  let storedSlow = 0;
  for (let q = 0; q < REQUESTS; q++) {
    const slow = q % 3 !== 0;
    const calls = Array.from({ length: WIDTH }, () =>
      slow ? 10 + 20 * latency.float() : 1 + 2 * latency.float(),
    );
    callsMs.push(...calls);
    allLeavesMs.push(Math.max(...calls));
    rootMs.push(2 + Math.max(...calls));
    const kept = !slow || keep.float() < 0.5;
    if (!kept) continue;
    if (slow) storedSlow++;
    const t0 = T0_NS + BigInt(q * GAP_MS) * MS;
    stored.push(...request(q + 1, t0, calls, slow ? 'ot=th:8' : ''));
  }
  for (let q = 0; q < LATE_REQUESTS; q++)
    stored.push(...request(100_000 + q, LATE_NS + BigInt(q * GAP_MS) * MS, [2, 3, 4], ''));
  const sorted = (xs: number[]) => xs.sort((a, b) => a - b);
  return {
    stored,
    storedSlow,
    callsMs: sorted(callsMs),
    allLeavesMs: sorted(allLeavesMs),
    rootMs: sorted(rootMs),
  };
}

describe('analysis answers weighted by sampling', () => {
  let store: Store;
  let close: () => Promise<void>;
  let api: Api;
  const s = scenario();

  beforeAll(async () => {
    ({ store, close } = await openTempStore('sampling-weights'));
    for (let i = 0; i < s.stored.length; i += 10_000)
      await store.client.command({
        query: `INSERT INTO otel_traces FORMAT JSONEachRow\n${s.stored
          .slice(i, i + 10_000)
          .map(row)
          .join('\n')}`,
      });
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
  const range = `from=${FROM_MS}&to=${TO_MS}`;
  const late = `from=${LATE_FROM_MS}&to=${LATE_FROM_MS + 10 * 60_000}`;
  /** Stored spans per request: root + 2 per call. */
  const spansOf = (requests: number) => requests * (1 + 2 * WIDTH);
  const relative = (got: number, want: number) => Math.abs(got - want) / want;

  it('says the data was weighted, and which share of spans had no sampling information', async () => {
    const fast = REQUESTS / 3;
    const want = spansOf(fast) / spansOf(fast + s.storedSlow);
    const edges = await get<EdgesResponse>(`/api/v1/edges?${range}`);
    expect(edges.sampling?.weighted).toBe(true);
    expect(edges.sampling?.spansWithoutSamplingInfo).toBeCloseTo(want, 12);
    // Host windows weigh too (sampling-stragglers-whatif.int.test.ts), with the same share.
    const hosts = await get<{ sampling?: SamplingInfo }>(
      `/api/v1/hosts?${range}&leafService=kv&leafOperation=get`,
    );
    expect(hosts.sampling).toEqual({ weighted: true, spansWithoutSamplingInfo: want });
    // Trace search counts each stored trace once, and says so.
    const traces = await get<{ sampling?: SamplingInfo }>(`/api/v1/traces?${range}&limit=1`);
    expect(traces.sampling?.weighted).toBe(false);
  });

  it('weights edge counts and call-latency quantiles back to the population', async () => {
    const edges = await get<EdgesResponse>(`/api/v1/edges?${range}`);
    const e = edges.edges.find((x) => x.leafService === 'kv' && x.leafOperation === 'get');
    if (!e) throw new Error('no front -> kv edge');
    // The stored requests: every fast one, about half of the slow ones.
    expect(s.storedSlow).toBeGreaterThan(350);
    expect(s.storedSlow).toBeLessThan(450);
    // Weighted counts are exact sums of the weights: stored fast + 2 x stored slow.
    expect(e.requests).toBe(REQUESTS / 3 + 2 * s.storedSlow);
    expect(relative(e.requests, REQUESTS)).toBeLessThan(0.06);
    expect(relative(e.calls ?? 0, REQUESTS * WIDTH)).toBeLessThan(0.06);
    // Quantiles: within 6% of the population's (type 7 over every call of the population).
    const p50 = quantileInclusive(s.callsMs, 0.5);
    const p95 = quantileInclusive(s.callsMs, 0.95);
    expect(p50).toBeGreaterThan(13);
    expect(relative(e.callLatency.p50, p50)).toBeLessThan(0.06);
    expect(relative(e.callLatency.p95, p95)).toBeLessThan(0.06);
  });

  it('weights fan-out requests and Table 1 back to the population', async () => {
    const res = await get<FanoutsResponse>(`/api/v1/fanouts?${range}`);
    expect(res.sampling?.weighted).toBe(true);
    const f = res.fanouts.find((x) => x.leafService === 'kv');
    if (!f) throw new Error('no kv fan-out');
    expect(f.requests).toBe(REQUESTS / 3 + 2 * s.storedSlow);
    const p50 = quantileInclusive(s.allLeavesMs, 0.5);
    const p95 = quantileInclusive(s.allLeavesMs, 0.95);
    expect(relative(f.table1.allLeaves.p50, p50)).toBeLessThan(0.06);
    expect(relative(f.table1.allLeaves.p95, p95)).toBeLessThan(0.06);
    // The histogram counts weighted fan-outs too: one width, every request.
    expect(f.curve.length).toBeGreaterThan(0);
  });

  it('weights fan-outs read from stored chunks as it does live', async () => {
    const live = await get<FanoutsResponse>(`/api/v1/fanouts?${range}`);
    const fromNs = T0_NS;
    const toNs = BigInt(TO_MS) * MS;
    const built = await materializeFanouts(store, { fromNs, toNs, nowNs: toNs + 10n ** 12n });
    expect(built.chunks).toBeGreaterThan(0);
    const stored = await get<FanoutsResponse>(`/api/v1/fanouts?${range}`);
    expect(stored.fanouts).toEqual(live.fanouts);
    expect(stored.fanouts[0]?.requests).toBe(REQUESTS / 3 + 2 * s.storedSlow);
  });

  it('weights the critical path: request count, band bounds and band means', async () => {
    const res = await get<CriticalPathResponse>(`/api/v1/criticalpath?${range}&band=p90`);
    expect(res.sampling?.weighted).toBe(true);
    expect(res.requests).toBe(REQUESTS / 3 + 2 * s.storedSlow);
    // The typical band is the population's p40-p60 of root durations (within 6%).
    expect(relative(res.typical.fromMs, quantileInclusive(s.rootMs, 0.4))).toBeLessThan(0.06);
    expect(relative(res.typical.toMs, quantileInclusive(s.rootMs, 0.6))).toBeLessThan(0.06);
    expect(relative(res.slow.fromMs, quantileInclusive(s.rootMs, 0.9))).toBeLessThan(0.06);
    // The slow band's path runs through its slowest call (weighted means: critical-path.test.ts).
    const kv = res.entries.find((e) => e.service === 'kv' && e.operation === 'get');
    expect(kv?.slowMs).toBeGreaterThan(25);
  });

  it('keeps unsampled ranges unweighted', async () => {
    const edges = await get<EdgesResponse>(`/api/v1/edges?${late}`);
    expect(edges.sampling).toEqual({ weighted: false, spansWithoutSamplingInfo: 1 });
    const e = edges.edges.find((x) => x.leafService === 'kv');
    expect(e?.requests).toBe(LATE_REQUESTS);
    expect(e?.calls).toBe(LATE_REQUESTS * 3);
    const fanouts = await get<FanoutsResponse>(`/api/v1/fanouts?${late}`);
    expect(fanouts.sampling?.weighted).toBe(false);
    expect(fanouts.fanouts[0]?.requests).toBe(LATE_REQUESTS);
  });
});
