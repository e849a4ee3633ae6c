import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EpisodesResponse } from '@tailscope/contracts';
import { buildStoreApi, type Api } from '../src/server/app';
import type { Store } from '../src/store';
import { insertSpans, openTempStore, T0_NS } from './analysis-support';
import { fanoutSpans } from './query-support';

/**
 * Issue 25: one span stamped in 2199 stretched the stored range, so the dashboard's "all time"
 * (oldest to newest of /api/v1/stats) judged episodes in 281-day windows. The stored range now
 * ignores spans dated more than a day past now; the span stays stored (and counted).
 */

const REQUESTS = 100;
/** 2199-06-01T00:00:00Z. */
const FUTURE_NS = 7_226_582_400_000_000_000n;

describe('the stored range ignores spans dated far in the future', () => {
  let store: Store;
  let close: () => Promise<void>;
  let api: Api;
  const spans = fanoutSpans(REQUESTS);
  const newestNs = spans.reduce((m, s) => (s.startNs > m ? s.startNs : m), 0n);

  beforeAll(async () => {
    ({ store, close } = await openTempStore('stats-range'));
    const stray = spans
      .slice(0, 1)
      .map((s) => ({ ...s, traceId: 'f'.repeat(32), startNs: FUTURE_NS }));
    await insertSpans(store, [...spans, ...stray]);
    api = await buildStoreApi(store);
  });
  afterAll(async () => {
    await api.close();
    await close();
  });

  const get = async <T>(url: string): Promise<T> => {
    const res = await api.inject({ method: 'GET', url });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  it('gives oldest and newest of the plausible spans, and counts every span', async () => {
    const stats = await get<{ spans: number; oldestUnixNano: string; newestUnixNano: string }>(
      '/api/v1/stats',
    );
    expect(stats.spans).toBe(spans.length + 1);
    expect(BigInt(stats.oldestUnixNano)).toBe(T0_NS);
    expect(BigInt(stats.newestUnixNano)).toBe(newestNs);
  });

  it('judges "all time" episodes in windows of the data, not of 175 years', async () => {
    const stats = await get<{ oldestUnixNano: string; newestUnixNano: string }>('/api/v1/stats');
    const from = Number(BigInt(stats.oldestUnixNano) / 1_000_000n);
    const to = Number(BigInt(stats.newestUnixNano) / 1_000_000n) + 1;
    const episodes = await get<EpisodesResponse>(`/api/v1/episodes?from=${from}&to=${to}`);
    expect(episodes.windowSeconds).toBeLessThanOrEqual(60);
  });
});
