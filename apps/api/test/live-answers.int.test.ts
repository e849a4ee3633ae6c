import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildStoreApi, type Api } from '../src/server/app';
import { admissionGates } from '../src/server/admit';
import { ANSWER_AGE_HEADER, liveAnswersOf, setLiveAnswers } from '../src/server/live-answers';
import type { Store } from '../src/store';
import { insertSpans, mixedSpans, openTempStore, T0_NS } from './analysis-support';

/**
 * Live answers (src/cache/live-answers.ts) against the real engine: a question over a range
 * ending now is answered from its last answer, with its age, while newer spans arrive; the
 * answer is recomputed behind it through the analysis gate and the next asker gets the new
 * one; `Cache-Control: no-cache` always computes. Every answer kept (no compute-time floor),
 * so the small store here exercises what a slow one would.
 */

const NOW_MS = Date.now();
// The data: 300 requests 40 ms apart ending a few seconds ago, shifted from the fixture's time.
const SHIFT_NS = BigInt(NOW_MS - 20_000) * 1_000_000n - T0_NS;
const shifted = (seed: number, n: number) =>
  mixedSpans(seed, n).map((s) => ({ ...s, startNs: s.startNs + SHIFT_NS }));
const FROM_MS = NOW_MS - 60_000;

describe('live answers', () => {
  let store: Store;
  let close: () => Promise<void>;
  let api: Api;

  beforeAll(async () => {
    ({ store, close } = await openTempStore('live-answers'));
    await insertSpans(store, shifted(5, 300));
    api = await buildStoreApi(store);
  });
  afterAll(async () => {
    await api.close();
    await close();
  });

  const get = async (url: string, headers: Record<string, string> = {}) => {
    const res = await api.inject({ method: 'GET', url, headers });
    expect(res.statusCode, url).toBe(200);
    const age = res.headers[ANSWER_AGE_HEADER];
    return { body: res.body, age: typeof age === 'string' ? Number(age) : undefined };
  };
  const url = (toMs: number) => `/api/v1/fanouts?from=${FROM_MS}&to=${toMs}`;

  it('serves the last answer over a moved live range, refreshes behind it, computes on no-cache', async () => {
    setLiveAnswers(store, { minComputeMs: 0, refreshAfterMs: 60_000 });
    const first = await get(url(NOW_MS));
    expect(first.age).toBeUndefined();
    const requestsOf = (body: string) =>
      (JSON.parse(body) as { fanouts: { requests: number }[] }).fanouts.reduce(
        (n, f) => n + f.requests,
        0,
      );
    const before = requestsOf(first.body);
    expect(before).toBeGreaterThan(0);

    // New requests inside the range; the same question a second later is answered from the
    // kept answer, which still names its own range.
    await insertSpans(store, shifted(6, 150));
    const again = await get(url(NOW_MS + 1_000));
    expect(again.age).toBeGreaterThanOrEqual(0);
    expect(again.body).toBe(first.body);
    expect((JSON.parse(again.body) as { to: number }).to).toBe(NOW_MS);

    // A client that asks for a fresh answer gets one, over the new spans.
    const fresh = await get(url(NOW_MS + 1_000), { 'cache-control': 'no-cache' });
    expect(fresh.age).toBeUndefined();
    expect(requestsOf(fresh.body)).toBeGreaterThan(before);
    // The next window of a series (a test's second phase) is another question.
    const next = await get(`/api/v1/fanouts?from=${NOW_MS - 10_000}&to=${NOW_MS + 1_000}`);
    expect(next.age).toBeUndefined();
    // Another parameter is another question.
    expect((await get(`${url(NOW_MS + 2_000)}&leafService=kv`)).age).toBeUndefined();

    // Off: always computed.
    setLiveAnswers(store, null);
    expect((await get(url(NOW_MS + 3_000))).age).toBeUndefined();
  });

  it('recomputes behind a served answer through the analysis gate', async () => {
    setLiveAnswers(store, { minComputeMs: 0, refreshAfterMs: 0 });
    const first = await get(url(NOW_MS + 4_000));
    await insertSpans(store, shifted(7, 100));
    const admitted = admissionGates(store).analysis.stats().admitted;
    const served = await get(url(NOW_MS + 5_000));
    expect(served.body).toBe(first.body);
    // The refresh asked the range of the served question; wait for it to land.
    const live = liveAnswersOf(store);
    for (let i = 0; i < 600 && (live?.refreshesRunning() ?? 0) > 0; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(live?.refreshesRunning()).toBe(0);
    expect(admissionGates(store).analysis.stats().admitted).toBeGreaterThan(admitted);
    const next = await get(url(NOW_MS + 5_000));
    expect(next.age).toBeGreaterThanOrEqual(0);
    expect(next.body).not.toBe(first.body);
    expect((JSON.parse(next.body) as { to: number }).to).toBe(NOW_MS + 5_000);
    expect(live?.stats().refreshes).toBeGreaterThanOrEqual(1);
  });

  it('a refresh asked while another runs waits for it, then runs', async () => {
    setLiveAnswers(store, { minComputeMs: 0, refreshAfterMs: 0 });
    const live = liveAnswersOf(store);
    const edges = (toMs: number) => `/api/v1/edges?from=${FROM_MS}&to=${toMs}`;
    await get(url(NOW_MS + 6_000));
    const firstEdges = await get(edges(NOW_MS + 6_000));
    await insertSpans(store, shifted(8, 100));
    const refreshes = live?.stats().refreshes ?? 0;
    // Both served kept; the fan-outs' refresh starts, the edges' waits for it.
    expect((await get(url(NOW_MS + 7_000))).age).toBeGreaterThanOrEqual(0);
    expect((await get(edges(NOW_MS + 7_000))).age).toBeGreaterThanOrEqual(0);
    expect(live?.refreshesRunning()).toBe(1);
    for (let i = 0; i < 600 && (live?.stats().refreshes ?? 0) < refreshes + 2; i++)
      await new Promise((r) => setTimeout(r, 50));
    for (let i = 0; i < 600 && (live?.refreshesRunning() ?? 0) > 0; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(live?.stats().refreshes).toBe(refreshes + 2);
    const nextEdges = await get(edges(NOW_MS + 7_000));
    expect(nextEdges.body).not.toBe(firstEdges.body);
    expect((JSON.parse(nextEdges.body) as { to: number }).to).toBe(NOW_MS + 7_000);
  });

  it('serves the what-if the same way, keyed by its body but the range', async () => {
    setLiveAnswers(store, { minComputeMs: 0, refreshAfterMs: 60_000 });
    const post = async (toMs: number, policy: Record<string, unknown>) => {
      const res = await api.inject({
        method: 'POST',
        url: '/api/v1/whatif',
        payload: { from: FROM_MS, to: toMs, leafService: 'kv', leafOperation: 'get', policy },
      });
      expect(res.statusCode, res.body).toBe(200);
      return { body: res.body, age: res.headers[ANSWER_AGE_HEADER] };
    };
    const first = await post(NOW_MS + 6_000, { kind: 'hedge' });
    expect(first.age).toBeUndefined();
    const again = await post(NOW_MS + 7_000, { kind: 'hedge' });
    expect(again.age).toBeDefined();
    expect(again.body).toBe(first.body);
    // Another policy is another question.
    expect((await post(NOW_MS + 7_000, { kind: 'tied' })).age).toBeUndefined();
  });
});
