import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildStoreApi, type Api } from '../src/server/app';
import { answerCacheOf, setAnswerCache } from '../src/cache';
import type { Store } from '../src/store';
import { insertSpans, mixedSpans, openTempStore, T0_NS } from './analysis-support';

/**
 * The answer cache (src/cache) against the real engine: every cached route answers exactly what
 * it answers with the cache off, a second ask is served from the cache, and spans arriving in
 * the range make the next answer new (and again equal to the uncached one).
 */

const FROM_MS = Number(T0_NS / 1_000_000n);
const range = `from=${FROM_MS}&to=${FROM_MS + 400 * 40}`;
const op = 'leafService=kv&leafOperation=get';
const URLS = [
  `/api/v1/fanouts?${range}`,
  `/api/v1/fanouts?${range}&leafService=kv&thresholdMs=12.5`,
  `/api/v1/edges?${range}`,
  `/api/v1/stragglers?${range}&${op}&by=host,sharing_mode,background`,
  `/api/v1/hosts?${range}&${op}&windowSeconds=5`,
  `/api/v1/leaves?${range}&${op}`,
  `/api/v1/episodes?${range}`,
];

describe('answer cache', () => {
  let store: Store;
  let close: () => Promise<void>;
  let api: Api;

  beforeAll(async () => {
    ({ store, close } = await openTempStore('answer-cache'));
    await insertSpans(store, mixedSpans(5, 400));
    api = await buildStoreApi(store);
  });
  afterAll(async () => {
    await api.close();
    await close();
  });

  /** Status and body (bytes: JSON and the binary leaves alike). */
  const get = async (url: string): Promise<{ status: number; body: string }> => {
    const res = await api.inject({ method: 'GET', url });
    return { status: res.statusCode, body: res.rawPayload.toString('base64') };
  };
  const all = async (): Promise<string[]> => {
    const out: string[] = [];
    for (const url of URLS) {
      const r = await get(url);
      expect(r.status, url).toBe(200);
      out.push(r.body);
    }
    return out;
  };

  it('answers as without it, from the cache the second time, anew after new spans', async () => {
    setAnswerCache(store, null);
    const uncached = await all();
    setAnswerCache(store, {});
    const first = await all();
    const second = await all();
    expect(first).toEqual(uncached);
    expect(second).toEqual(uncached);
    const stats = answerCacheOf(store)?.stats();
    expect(stats?.misses).toBe(URLS.length);
    expect(stats?.hits).toBe(URLS.length);

    // More requests in the same range: every answer is computed again and matches the
    // uncached one over the new data.
    await insertSpans(store, mixedSpans(6, 150));
    const after = await all();
    expect(answerCacheOf(store)?.stats().misses).toBe(2 * URLS.length);
    setAnswerCache(store, null);
    const afterUncached = await all();
    expect(after).toEqual(afterUncached);
    // The new spans changed what the routes answer, so a stale answer would have been caught.
    expect(after.filter((b, i) => b !== uncached[i]).length).toBeGreaterThanOrEqual(
      URLS.length - 1,
    );
    // Five passes over the routes: generous for a busy machine (no time is asserted).
  }, 300_000);

  it('shares one computation between concurrent identical questions', async () => {
    setAnswerCache(store, {});
    const url = `/api/v1/stragglers?${range}&${op}`;
    const answers = await Promise.all([get(url), get(url), get(url)]);
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    const s = answerCacheOf(store)?.stats();
    expect(s?.misses).toBe(1);
    expect((s?.joined ?? 0) + (s?.hits ?? 0)).toBe(2);
  }, 120_000);
});
