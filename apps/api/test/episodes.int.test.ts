import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EpisodesResponse, StatsResponse } from '@tailscope/contracts';
import { presetSpec, type ScenarioSpec, type ScenarioTruth } from '@tailscope/tracegen';
import { buildStoreApi, type Api } from '../src/server/app';
import type { Store } from '../src/store';
import { ingestScenario, openTempStore } from './analysis-support';

/**
 * Episodes against each series' own history (issue #13) on tracegen data through the real
 * engine: a planted slowdown of a single-replica service is found with its start and end
 * within one window; steady data over several seeds shows none.
 */

const START = '2024-03-01T05:00:00Z';
const START_MS = Date.parse(START);

/** sick-host with one storage host: the fault has no second host to be compared with. */
function singleReplicaFault(): ScenarioSpec {
  return presetSpec('sick-host', { hosts: 1, ratePerSecond: 20 });
}

async function episodesOf(
  api: Api,
  fromMs: number,
  toMs: number,
  extra = '',
): Promise<EpisodesResponse> {
  const res = await api.inject({
    method: 'GET',
    url: `/api/v1/episodes?from=${fromMs}&to=${toMs}${extra}`,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

describe('episodes on a single-replica fault', () => {
  let store: Store;
  let close: () => Promise<void>;
  let api: Api;
  let truth: ScenarioTruth;
  const requests = 24_000; // 20 minutes at 20/s

  beforeAll(async () => {
    ({ store, close } = await openTempStore('episodes-fault'));
    ({ truth } = await ingestScenario(store, singleReplicaFault(), {
      requests,
      seed: 1,
      start: START,
    }));
    api = await buildStoreApi(store);
  }, 240_000);
  afterAll(async () => {
    await api.close();
    await close();
  });

  it('finds the planted episode, start and end within one window', async () => {
    const plantedRel = truth.episodes[0];
    expect(plantedRel).toBeDefined();
    if (!plantedRel) return;
    // Truth times are ms after the run's start.
    const planted = {
      host: plantedRel.host,
      startMs: START_MS + plantedRel.startMs,
      endMs: START_MS + plantedRel.endMs,
    };
    const body = await episodesOf(api, START_MS, START_MS + 20 * 60_000);
    expect(body.windowSeconds).toBe(10);
    expect(body.sampling).toEqual({ weighted: false, spansWithoutSamplingInfo: 1 });
    const windowMs = body.windowSeconds * 1000;
    if (process.env.EPISODES_PRINT) console.log(JSON.stringify({ planted, body }, null, 1));
    const callee = body.episodes.filter((e) => e.kind === 'callee' && e.service === 'storage');
    expect(callee).toHaveLength(1);
    const e = callee[0];
    expect(e?.host).toBe(planted.host);
    expect(Math.abs((e?.fromMs ?? 0) - planted.startMs)).toBeLessThanOrEqual(windowMs);
    expect(Math.abs((e?.toMs ?? 0) - planted.endMs)).toBeLessThanOrEqual(windowMs);
    expect(e?.ratio).toBeGreaterThan(3);
    expect(e?.qValue).toBeLessThan(0.05);
    // The edge api GET /feed -> storage Read, timed by the CLIENT span, is found as well: the
    // same calls as the host's, so one entry names both (issue 24: one fault, one entry).
    const edge = body.episodes.find(
      (x) => x.service === 'storage' && x.parentService !== undefined,
    );
    expect(edge?.parentService).toBe('api');
    expect(edge?.operation).toBe('Read');
    expect(Math.abs((edge?.fromMs ?? 0) - planted.startMs)).toBeLessThanOrEqual(windowMs);
    expect(Math.abs((edge?.toMs ?? 0) - planted.endMs)).toBeLessThanOrEqual(windowMs);
    // Nothing else: requests into api are no calls (no caller), so only storage shows.
    expect(new Set(body.episodes.map((x) => x.service))).toEqual(new Set(['storage']));
  });

  it('filters by service and answers 400 on a bad range', async () => {
    const only = await episodesOf(api, START_MS, START_MS + 20 * 60_000, '&service=storage');
    expect(only.episodes.length).toBeGreaterThan(0);
    expect(only.episodes.every((e) => e.service === 'storage')).toBe(true);
    const bad = await api.inject({ method: 'GET', url: '/api/v1/episodes?from=10&to=5' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json<{ error: string }>().error).toMatch(/from/);
    // A range with no stored span: an empty answer, not an error.
    const none = await episodesOf(api, START_MS - 7_200_000, START_MS - 3_600_000);
    expect(none.episodes).toEqual([]);
    expect(none.windowsTested).toBe(0);
    const stats = await api.inject({ method: 'GET', url: '/api/v1/stats' });
    expect(stats.json<StatsResponse>().sampling).toEqual({
      weighted: false,
      spansWithoutSamplingInfo: 1,
    });
  });
});

// The false-alarm rate: 5 seeds of a steady preset (paper-fanout: i.i.d. lognormal calls with
// a 1% tail at 1 s, 10 minutes each). Expected: no episode in any seed; BH at 0.05 bounds the
// chance of any episode per run by 5% under no change at all.
describe('episodes on steady data', () => {
  it('flags nothing over 5 seeds', async () => {
    const spec = presetSpec('paper-fanout', { width: 5, ratePerSecond: 10 });
    let runsWithEpisodes = 0;
    let tested = 0;
    for (let seed = 1; seed <= 5; seed++) {
      const { store, close } = await openTempStore(`episodes-steady-${seed}`);
      const api = await buildStoreApi(store);
      try {
        await ingestScenario(store, spec, { requests: 6000, seed, start: START });
        const body = await episodesOf(api, START_MS, START_MS + 10 * 60_000);
        tested += body.windowsTested ?? 0;
        if (process.env.EPISODES_PRINT) console.log(seed, body.windowsTested, body.episodes.length);
        if (body.episodes.length > 0) runsWithEpisodes++;
      } finally {
        await api.close();
        await close();
      }
    }
    expect(tested).toBeGreaterThan(5 * 60);
    expect(runsWithEpisodes).toBe(0);
  }, 300_000);
});

// The `microservices` preset (issue #12's application): customer, one pod, is 10-40x slower
// from 40% to 60% of the run, and so are its MySQL calls. 6,000 requests at 5/s: 20 minutes.
describe('episodes on the microservices preset', () => {
  it('finds the planted fault on customer, start and end within one window', async () => {
    const { store, close } = await openTempStore('episodes-micro');
    const api = await buildStoreApi(store);
    try {
      const { truth } = await ingestScenario(
        store,
        presetSpec('microservices', { ratePerSecond: 5 }),
        { requests: 6000, seed: 3, start: START },
      );
      const fault = truth.app?.fault;
      expect(fault).toBeDefined();
      if (!fault) return;
      const body = await episodesOf(api, START_MS, START_MS + 20 * 60_000);
      if (process.env.EPISODES_PRINT) console.log(JSON.stringify(body, null, 1));
      const windowMs = body.windowSeconds * 1000;
      const near = (e: { fromMs: number; toMs: number }): boolean =>
        Math.abs(e.fromMs - (START_MS + fault.startMs)) <= windowMs &&
        Math.abs(e.toMs - (START_MS + fault.endMs)) <= windowMs;
      const callee = body.episodes.filter(
        (e) => e.kind === 'callee' && e.service === fault.service,
      );
      expect(callee.map((e) => e.host)).toEqual([fault.host]);
      expect(callee.every(near)).toBe(true);
      // The edge into it: its own entry, or named on the host's when they are the same calls.
      const edge = body.episodes.find(
        (e) => e.service === fault.service && e.parentService !== undefined,
      );
      expect(edge?.parentService).toBe('frontend');
      expect(edge && near(edge)).toBe(true);
      // Only the faulty service, its MySQL calls (slowed with it) and nothing unplanted.
      expect(new Set(body.episodes.map((e) => e.service))).toEqual(
        new Set([fault.service, 'mysql']),
      );
    } finally {
      await api.close();
      await close();
    }
  }, 300_000);
});
