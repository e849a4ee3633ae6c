import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FanoutsResponse } from '@tailscope/contracts';
import { presetSpec } from '@tailscope/tracegen';
import { buildStoreApi } from '../src/server/app';
import { migrate, openStore, sql, type Store } from '../src/store';
import { selectDuplicates } from '../src/store/edges';
import { coverage, materializeFanouts } from '../src/store/fanouts';
import { materializeOpenFanouts } from '../src/store/fanouts/open';
import { ingestScenario, insertSpans } from './analysis-support';

/**
 * The open chunk's fan-outs and edges stored per 10 s bucket (fanouts/open.ts) on a store that
 * keeps growing: a range ending "now" reads the settled buckets and detects live only the newest
 * ones, and every fan-out view answers exactly as the all-live path (stored tables off), with
 * the same duplicates; a late span into a stored bucket sends it live until the next pass
 * rebuilds it; a range starting inside a bucket; and the hand-over once the chunk is stored
 * whole. 3 minutes of the `microservices` preset at 5 requests/s (it carries duplicated spans).
 */

const START = '2024-03-01T07:00:00Z'; // a chunk start (10-minute chunks, epoch-aligned)
const START_MS = Date.parse(START);
const MIN = 60_000;
const msToNs = (ms: number): bigint => BigInt(ms) * 1_000_000n;
/** The routes compared; the leaf's views are asked for the widest fan-out's leaf. */
const ROUTES = ['fanouts', 'edges', 'hosts', 'stragglers', 'leaves'];

describe('fan-outs over a range ending now: the open chunk stored per bucket', () => {
  let dir: string;
  let store: Store;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tailscope-fanouts-open-'));
    store = openStore({ dataDir: dir });
    await migrate(store);
    await ingestScenario(store, presetSpec('microservices', { ratePerSecond: 5 }), {
      requests: 900,
      seed: 8,
      start: START,
    });
  }, 240_000);
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every route's answer over [from, to), then the same with the stored tables off. */
  async function answers(fromMs: number, toMs: number): Promise<{ got: unknown; live: unknown }> {
    const ask = async (): Promise<unknown[]> => {
      const api = await buildStoreApi(store);
      try {
        const out: unknown[] = [];
        let leaf = '';
        for (const route of ROUTES) {
          const res = await api.inject({
            method: 'GET',
            url: `/api/v1/${route}?from=${fromMs}&to=${toMs}${route === 'fanouts' || route === 'edges' ? '' : leaf}`,
          });
          expect(res.statusCode, res.body).toBe(200);
          // Leaves answer in a binary format: compared byte for byte.
          const json = String(res.headers['content-type'] ?? '').includes('json');
          out.push(json ? res.json() : res.rawPayload.toString('base64'));
          if (route === 'fanouts') {
            const top = res.json<FanoutsResponse>().fanouts[0];
            expect(top).toBeDefined();
            leaf = `&leafService=${encodeURIComponent(top?.leafService ?? '')}&leafOperation=${encodeURIComponent(top?.leafOperation ?? '')}`;
          }
        }
        const scope = { fromNs: msToNs(fromMs), toNs: msToNs(toMs) };
        out.push(await selectDuplicates(store, scope));
        return out;
      } finally {
        await api.close();
      }
    };
    const got = await ask();
    store.accelerators.fanouts = false;
    try {
      return { got, live: await ask() };
    } finally {
      store.accelerators.fanouts = true;
    }
  }
  const split = async (fromMs: number, toMs: number): Promise<number> =>
    Number(
      (await coverage(store, { fromNs: msToNs(fromMs), toNs: msToNs(toMs) })).splitNs / 1_000_000n,
    );

  const now1 = START_MS + 3 * MIN + 20_000;

  it('stores the settled buckets and answers as live', async () => {
    const range = { fromNs: msToNs(START_MS), toNs: msToNs(now1), nowNs: msToNs(now1) };
    expect(await materializeFanouts(store, range)).toEqual({ chunks: 0 });
    // Every bucket that ended 10 s before now: 3 min 10 s, 19 buckets; then nothing to do.
    expect(await materializeOpenFanouts(store, { nowNs: msToNs(now1) })).toEqual({ chunks: 19 });
    expect(await materializeOpenFanouts(store, { nowNs: msToNs(now1) })).toEqual({ chunks: 0 });
    expect(await split(START_MS, now1)).toBe(START_MS + 190_000);
    const { got, live } = await answers(START_MS, now1);
    expect((got as { fanouts: unknown[] }[])[0]?.fanouts.length).toBeGreaterThan(0);
    expect(got).toEqual(live);
    expect((got as number[])[ROUTES.length]).toBeGreaterThan(0);
    // A range starting inside a bucket reads its fan-outs and counts its copies live.
    const inside = await answers(START_MS + 15_500, now1);
    expect(inside.got).toEqual(inside.live);
  }, 240_000);

  it('sends a late span live until rebuilt, then replaces the old rows', async () => {
    const [parent] = await store.query<{ t: string; s: string; svc: string; ts: string }>(sql`
      SELECT TraceId AS t, SpanId AS s, ServiceName AS svc,
        toString(toUnixTimestamp64Nano(Timestamp)) AS ts
      FROM otel_traces
      WHERE Timestamp >= fromUnixTimestamp64Milli(${START_MS + MIN + 4000})
        AND Timestamp < fromUnixTimestamp64Milli(${START_MS + MIN + 6000})
        AND SpanKind = 'Server'
      ORDER BY Timestamp LIMIT 1`);
    expect(parent).toBeDefined();
    // Two calls at once under an existing span (a new fan-out of that request, 1:05).
    const at = BigInt(parent?.ts ?? '0') + 1_000_000n;
    await insertSpans(
      store,
      [0, 1].map((i) => ({
        traceId: parent?.t ?? '',
        spanId: `abcdefabcdefab0${i}`,
        parentSpanId: parent?.s ?? '',
        service: parent?.svc ?? '',
        name: 'late call',
        kind: 'Client',
        startNs: at + BigInt(i) * 100_000n,
        durationNs: 3_000_000n,
        attributes: { 'peer.service': 'latecomer' },
        resource: {},
      })),
    );
    // The bucket the late spans start in no longer matches: live from its start.
    expect(await split(START_MS, now1)).toBe(START_MS + MIN);
    const late = await answers(START_MS, now1);
    expect(late.got).toEqual(late.live);
    expect(JSON.stringify(late.got)).toContain('latecomer');
    const rebuilt = await materializeOpenFanouts(store, { nowNs: msToNs(now1) });
    expect(rebuilt.chunks).toBeGreaterThanOrEqual(1);
    expect(rebuilt.chunks).toBeLessThanOrEqual(3);
    expect(await split(START_MS, now1)).toBe(START_MS + 190_000);
    const again = await answers(START_MS, now1);
    expect(again.got).toEqual(again.live);
    // One stored row per fan-out: the rebuilt buckets' old rows are gone.
    const [twice] = await store.query<{ n: string }>(sql`
      SELECT toString(count()) AS n FROM (
        SELECT fk, leafService, leafOperation FROM tailscope_fanouts
        GROUP BY fk, leafService, leafOperation HAVING count() > 1)`);
    expect(twice?.n).toBe('0');
  }, 240_000);

  it('hands over to the chunk once it is stored whole', async () => {
    const now3 = START_MS + 11 * MIN + 10_000;
    const range = { fromNs: msToNs(START_MS), toNs: msToNs(now3), nowNs: msToNs(now3) };
    expect(await materializeFanouts(store, range)).toEqual({ chunks: 1 });
    const [records] = await store.query<{ n: string }>(
      sql`SELECT toString(count()) AS n FROM tailscope_fanout_open WHERE bucket < ${(START_MS + 10 * MIN) / 10_000}`,
    );
    expect(records?.n).toBe('0');
    const { got, live } = await answers(START_MS, now3);
    expect(got).toEqual(live);
  }, 240_000);
});
