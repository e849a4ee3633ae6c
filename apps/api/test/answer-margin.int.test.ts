import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildStoreApi, type Api } from '../src/server/app';
import { answerCacheOf, setAnswerCache } from '../src/cache';
import type { Store } from '../src/store';
import { rangeVersion } from '../src/store/traces/range-version';
import { insertSpans, mixedSpans, openTempStore, T0_NS } from './analysis-support';

/**
 * The answer cache's margin grace (cache/answer-cache.ts MARGIN_GRACE_MS) against the real
 * engine: spans landing only after a range's end (as every span does under steady ingest when
 * the range ends within a minute of now) leave the range's inner version alone, so a question
 * asked again within the grace is the kept answer; a span inside the range makes it new.
 */

const FROM_MS = Number(T0_NS / 1_000_000n);
const TO_MS = FROM_MS + 4_000;
const range = `from=${FROM_MS}&to=${TO_MS}`;
const URLS = [`/api/v1/episodes?${range}`, `/api/v1/fanouts?${range}`];
const ms = (v: number) => BigInt(v) * 1_000_000n;

/** mixedSpans of `seed` moved by `shiftMs`. */
const shifted = (seed: number, requests: number, shiftMs: number) =>
  mixedSpans(seed, requests).map((s) => ({ ...s, startNs: s.startNs + ms(shiftMs) }));

describe('answer cache margin grace', () => {
  let store: Store;
  let close: () => Promise<void>;
  let api: Api;

  beforeAll(async () => {
    ({ store, close } = await openTempStore('answer-margin'));
    await insertSpans(store, mixedSpans(5, 200));
    api = await buildStoreApi(store);
    // A grace no busy machine outlasts between two asks (its end is the unit test's).
    setAnswerCache(store, { marginGraceMs: 600_000 });
  });
  afterAll(async () => {
    await api.close();
    await close();
  });

  const all = async (): Promise<string[]> => {
    const out: string[] = [];
    for (const url of URLS) {
      const res = await api.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      out.push(res.body);
    }
    return out;
  };

  it('keeps answers through spans after the end, not through spans in the range', async () => {
    const scope = { fromNs: ms(FROM_MS), toNs: ms(TO_MS) };
    const first = await all();
    const v0 = await rangeVersion(store, scope);

    // 50 requests 20 s after the start: after the range's end, inside its 60 s edge margin.
    await insertSpans(store, shifted(7, 50, 20_000));
    const v1 = await rangeVersion(store, scope);
    expect(v1.exact).not.toBe(v0.exact);
    expect(v1.inner).toBe(v0.inner);
    const kept = answerCacheOf(store)?.stats();
    expect(await all()).toEqual(first);
    const after = answerCacheOf(store)?.stats();
    expect(after?.marginHits).toBe((kept?.marginHits ?? 0) + URLS.length);
    expect(after?.misses).toBe(kept?.misses);

    // 50 requests inside the range: both answers computed again, and equal to uncached ones.
    await insertSpans(store, shifted(8, 50, 1_000));
    const v2 = await rangeVersion(store, scope);
    expect(v2.inner).not.toBe(v1.inner);
    const fresh = await all();
    expect(answerCacheOf(store)?.stats().misses).toBe((after?.misses ?? 0) + URLS.length);
    expect(fresh).not.toEqual(first);
    setAnswerCache(store, null);
    expect(await all()).toEqual(fresh);
  }, 120_000);
});
