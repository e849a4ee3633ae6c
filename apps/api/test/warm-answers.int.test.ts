import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allDataRange } from '@tailscope/contracts';
import { buildStoreApi, type Api } from '../src/server/app';
import { ANSWER_AGE_HEADER, setLiveAnswers } from '../src/server/live-answers';
import { startWarmer, warmFiguresOf, warmFromEnv, type Warmer } from '../src/server/warm-answers';
import type { Store } from '../src/store';
import { insertSpans, mixedSpans, openTempStore, T0_NS } from './analysis-support';

/**
 * Warm answers (src/server/warm-answers.ts) against the real engine: a pass asks the dashboard's
 * first questions over "All data" in the background; a person asking one of them afterwards is
 * served that answer (with its age) instead of waiting for a computation, and it equals what a
 * fresh computation gives. A pass over an unchanged store asks nothing.
 */

const NOW_MS = Date.now();
// 300 requests 40 ms apart ending a few seconds ago, shifted from the fixture's time.
const SHIFT_NS = BigInt(NOW_MS - 20_000) * 1_000_000n - T0_NS;
const shifted = (seed: number, n: number) =>
  mixedSpans(seed, n).map((s) => ({ ...s, startNs: s.startNs + SHIFT_NS }));

describe('warm answers', () => {
  let store: Store;
  let close: () => Promise<void>;
  let api: Api;
  let warmer: Warmer;
  const lines: string[] = [];

  beforeAll(async () => {
    ({ store, close } = await openTempStore('warm-answers'));
    await insertSpans(store, shifted(5, 300));
    api = await buildStoreApi(store);
    // Every answer kept, however cheap (a small store), and no recomputation behind a served one.
    setLiveAnswers(store, { minComputeMs: 0, refreshAfterMs: 600_000 });
    // An hour apart: only the passes the test asks for run.
    warmer = startWarmer(api, store, { intervalMs: 3_600_000, log: (l) => lines.push(l) });
  });
  afterAll(async () => {
    await warmer.stop();
    await api.close();
    await close();
  });

  const get = async (url: string, headers: Record<string, string> = {}) => {
    const res = await api.inject({ method: 'GET', url, headers });
    expect(res.statusCode, url).toBe(200);
    const age = res.headers[ANSWER_AGE_HEADER];
    return { body: res.body, age: typeof age === 'string' ? Number(age) : undefined };
  };

  it('answers the first questions in the background; a person is served them warm', async () => {
    await warmer.pass();
    const fig = warmFiguresOf(store);
    expect(fig?.passes).toBe(1);
    expect(fig?.lastFailures).toEqual([]);
    expect(fig?.lastFailed).toBe(0);
    // Fan-outs, incidents, episodes, the stragglers of each distinct leaf (the fixture has
    // fan-outs), edges, the worst leaf's calls, hosts and service episodes, the critical path.
    expect(fig?.lastQuestions).toBeGreaterThanOrEqual(9);
    expect(lines.at(-1)).toMatch(/^warmed the dashboard's first answers: \d+ questions in/);

    // The dashboard's "All data" over the same store: what the pass asked.
    const stats = JSON.parse((await get('/api/v1/stats')).body) as {
      spans: number;
      oldestUnixNano: string;
      newestUnixNano: string;
      settledUnixNano?: string | null;
    };
    // As the dashboard reads them (apps/web/src/state/filters.ts nanoToMs): fractional ms.
    const ms = (n: string | null | undefined) =>
      n ? Number(n.slice(0, -6)) + Number(n.slice(-6)) / 1e6 : null;
    const range = allDataRange(
      {
        oldestMs: ms(stats.oldestUnixNano),
        newestMs: ms(stats.newestUnixNano),
        settledMs: ms(stats.settledUnixNano),
      },
      Date.now(),
    );
    expect(range).not.toBeNull();
    const q = `from=${String(range?.from)}&to=${String(range?.to)}`;
    const fanouts = await get(`/api/v1/fanouts?${q}`);
    expect(fanouts.age).toBeGreaterThanOrEqual(0);
    const incidents = await get(`/api/v1/incidents?${q}`);
    expect(incidents.age).toBeGreaterThanOrEqual(0);
    const leaf = (
      JSON.parse(fanouts.body) as { fanouts: { leafService: string; leafOperation: string }[] }
    ).fanouts[0];
    expect(leaf).toBeDefined();
    const stragglers = `/api/v1/stragglers?${q}&leafService=${encodeURIComponent(leaf?.leafService ?? '')}&leafOperation=${encodeURIComponent(leaf?.leafOperation ?? '')}&by=host%2Csharing_mode%2Cbackground`;
    const warmStragglers = await get(stragglers);
    expect(warmStragglers.age).toBeGreaterThanOrEqual(0);

    // Served warm is what a fresh computation gives (nothing arrived since).
    const fresh = await get(`/api/v1/fanouts?${q}`, { 'cache-control': 'no-cache' });
    expect(fresh.age).toBeUndefined();
    expect(fresh.body).toBe(fanouts.body);
    expect((await get(stragglers, { 'cache-control': 'no-cache' })).body).toBe(warmStragglers.body);

    // Nothing new in the store: a pass asks nothing.
    await warmer.pass();
    expect(warmFiguresOf(store)?.passes).toBe(1);
    const spans = stats.spans;
    // New spans: the next pass asks again, once the kept store figures show them.
    await insertSpans(store, shifted(6, 50));
    for (let i = 0; i < 100; i++) {
      const now = JSON.parse((await get('/api/v1/stats')).body) as { spans: number };
      if (now.spans !== spans) break;
      await new Promise((ok) => setTimeout(ok, 100));
    }
    await warmer.pass();
    expect(warmFiguresOf(store)?.passes).toBe(2);
  });

  it('reads its interval from TAILSCOPE_WARM_S and names the variable on a bad value', () => {
    expect(warmFromEnv({})).toEqual({ intervalMs: 120_000 });
    expect(warmFromEnv({ TAILSCOPE_WARM_S: '30' })).toEqual({ intervalMs: 30_000 });
    expect(warmFromEnv({ TAILSCOPE_WARM_S: '0' })).toBeNull();
    expect(() => warmFromEnv({ TAILSCOPE_WARM_S: 'soon' })).toThrow(/TAILSCOPE_WARM_S/);
    expect(() => warmFromEnv({ TAILSCOPE_WARM_S: '-1' })).toThrow(/TAILSCOPE_WARM_S/);
  });
});
