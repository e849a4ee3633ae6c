import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatsResponse } from '@tailscope/contracts';
import { presetSpec } from '@tailscope/tracegen';
import { buildStoreApi } from '../src/server/app';
import { migrate, openStore, type Store } from '../src/store';
import { materializeOpenBuckets } from '../src/store/call-buckets/open';
import { materializeOpenFanouts } from '../src/store/fanouts/open';
import { storeFigures } from '../src/cache/store-figures';
import { ingestScenario } from './analysis-support';

/**
 * `settledUnixNano` of /api/v1/stats: how far the stored fan-outs and episode series both reach,
 * where the dashboard ends its analyses (issue 24). A minute of the `microservices` preset in
 * the open chunk: nothing stored, then the fan-outs alone (still null: the episode series are
 * not), then both, read from the stores' bucket records.
 */

const START_MS = Date.parse('2024-03-01T07:00:00Z'); // a 10-minute chunk's start
const msToNs = (ms: number): bigint => BigInt(ms) * 1_000_000n;

describe('stats: how far the stored data reaches', () => {
  let dir: string;
  let store: Store;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tailscope-stats-settled-'));
    store = openStore({ dataDir: dir });
    await migrate(store);
    await ingestScenario(store, presetSpec('microservices', { ratePerSecond: 5 }), {
      requests: 300,
      seed: 3,
      start: new Date(START_MS).toISOString(),
    });
  }, 240_000);
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The figure from kept figures refreshed after the stores' records changed (polled). */
  const settled = async (): Promise<string | null | undefined> => {
    const api = await buildStoreApi(store);
    try {
      // These inserts skip ingest's notes: a write note makes the next read refresh them.
      const noted = Date.now();
      storeFigures(store).written();
      for (let i = 0; i < 200; i++) {
        const res = await api.inject({ method: 'GET', url: '/api/v1/stats' });
        expect(res.statusCode, res.body).toBe(200);
        const stats = res.json<StatsResponse>();
        // Computed by a refresh that started after the note.
        if (Date.now() - (stats.storeFiguresAgeMs ?? Infinity) >= noted)
          return stats.settledUnixNano;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('the kept figures were not refreshed in 10 s');
    } finally {
      await api.close();
    }
  };

  it('is null until both are stored, then the end of the newest bucket both hold', async () => {
    expect(await settled()).toBeNull();
    // 80 s after the start every bucket that ended 10 s before is built: 7 of 10 s.
    const nowNs = msToNs(START_MS + 80_000);
    expect((await materializeOpenFanouts(store, { nowNs })).chunks).toBe(7);
    expect(await settled()).toBeNull();
    expect((await materializeOpenBuckets(store, { nowNs })).chunks).toBe(7);
    const both = msToNs(START_MS + 70_000).toString();
    expect(await settled()).toBe(both);
  }, 120_000);
});
