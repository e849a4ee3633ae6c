import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpanRecord } from '@tailscope/analysis';
import type {
  CriticalPathResponse,
  EdgesResponse,
  FanoutsResponse,
  StragglersResponse,
} from '@tailscope/contracts';
import { countSpans, eventually, JSON_TYPE, postOtlp } from './ingest-support';
import { fanoutSpans, startServer, T0_NS } from './query-support';
import { otlpJson } from './sampling-support';

/**
 * Issue 25: weighted counts wrapped at 2^32. Spans kept by OpenTelemetry consistent probability
 * sampling carry `ot=th:<hex>` and stand for 2^56 / (2^56 - T) spans each; at `th:ffffff`
 * (2^24 each) 400 fan-outs answered `requests` 2,415,919,104 (6,710,886,400 mod 2^32), and at
 * `th:ffffffff` (2^32, which wraps to 0) or the largest threshold (2^56) /fanouts and /edges
 * answered 500 with a NaN. Each group below is 400 requests of frontend search fanning out 4
 * calls to kv get, ingested through the OTLP receiver, an hour apart; the counts are exact
 * multiples of the adjusted count (every one is a power of two, so the sums are exact in
 * Float64).
 */

const REQUESTS = 400;
const WIDTH = 4;
const HOUR_NS = 3_600_000_000_000n;
const GROUPS = [
  { th: 'ffffff', weight: 2 ** 24 },
  { th: 'ffffffff', weight: 2 ** 32 },
  { th: 'ffffffffffffff', weight: 2 ** 56 },
] as const;

function groupSpans(g: number): SpanRecord[] {
  return fanoutSpans(REQUESTS, WIDTH, 11 + g).map((s) => ({
    ...s,
    traceId: `${g + 1}${s.traceId.slice(1)}`,
    startNs: s.startNs + BigInt(g) * HOUR_NS,
  }));
}

const rangeOf = (g: number): string => {
  const from = Number((T0_NS + BigInt(g) * HOUR_NS) / 1_000_000n);
  return `from=${from}&to=${from + 600_000}`;
};

/** Every number in an answer is finite (a NaN or Infinity would have become null or a 500). */
function expectFinite(value: unknown, path = '$'): void {
  if (typeof value === 'number') expect(Number.isFinite(value), path).toBe(true);
  else if (Array.isArray(value))
    value.forEach((v, i) => {
      expectFinite(v, `${path}[${i}]`);
    });
  else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) expectFinite(v, `${path}.${k}`);
}

describe('weighted counts beyond 2^32', () => {
  let server: Awaited<ReturnType<typeof startServer>>;

  beforeAll(async () => {
    server = await startServer('sampling-thresholds');
    let total = 0;
    for (const [g, { th }] of GROUPS.entries()) {
      const spans = groupSpans(g);
      total += spans.length;
      const res = await postOtlp(
        server.running,
        otlpJson(spans, () => `ot=th:${th}`),
        JSON_TYPE,
      );
      expect(res.status).toBe(200);
    }
    await eventually(async () => (await countSpans(server.running)) === total, 60_000);
  }, 120_000);
  afterAll(async () => server.stop());

  const get = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${server.base}${path}`);
    const text = await res.text();
    expect(res.status, text).toBe(200);
    const body = JSON.parse(text) as T;
    expectFinite(body);
    return body;
  };

  it.each(GROUPS.map((g, i) => [g.th, g.weight, i] as const))(
    'th:%s counts every request %d times in /fanouts and /edges',
    async (_th, weight, g) => {
      const fanouts = await get<FanoutsResponse>(`/api/v1/fanouts?${rangeOf(g)}`);
      expect(fanouts.sampling?.weighted).toBe(true);
      const f = fanouts.fanouts.find((x) => x.leafService === 'kv');
      expect(f?.requests).toBe(REQUESTS * weight);
      // The amplification (from the width histogram) counts weighted fan-outs too.
      expect(f?.amplification.fanouts).toBe(REQUESTS * weight);
      // Every request weighs the same, so F(t) is the unweighted share: within [0.98, 1].
      expect(f?.amplification.singleCallCdf).toBeGreaterThan(0.98);
      const edges = await get<EdgesResponse>(`/api/v1/edges?${rangeOf(g)}`);
      const e = edges.edges.find((x) => x.leafService === 'kv');
      expect(e?.requests).toBe(REQUESTS * weight);
      expect(e?.calls).toBe(REQUESTS * WIDTH * weight);
    },
  );

  it('weighs the critical path, stragglers and hosts by 2^56 at the largest threshold', async () => {
    const g = GROUPS.length - 1;
    const weight = 2 ** 56;
    const cp = await get<CriticalPathResponse>(`/api/v1/criticalpath?${rangeOf(g)}`);
    expect(cp.requests).toBe(REQUESTS * weight);
    const st = await get<StragglersResponse>(
      `/api/v1/stragglers?${rangeOf(g)}&leafService=kv&leafOperation=get`,
    );
    expect(st.fanouts).toBe(REQUESTS * weight);
    expect(st.calls).toBe(REQUESTS * WIDTH * weight);
    await get(`/api/v1/hosts?${rangeOf(g)}&leafService=kv&leafOperation=get`);
  });

  it('answers the whole range, every threshold together, without a NaN', async () => {
    const from = Number(T0_NS / 1_000_000n);
    const all = `from=${from}&to=${from + 4 * 3_600_000}`;
    const fanouts = await get<FanoutsResponse>(`/api/v1/fanouts?${all}`);
    const want = GROUPS.reduce((s, g) => s + REQUESTS * g.weight, 0);
    expect(fanouts.fanouts.find((x) => x.leafService === 'kv')?.requests).toBe(want);
    const edges = await get<EdgesResponse>(`/api/v1/edges?${all}`);
    expect(edges.edges.find((x) => x.leafService === 'kv')?.requests).toBe(want);
  });
});
