import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EpisodesResponse } from '@tailscope/contracts';
import { presetSpec } from '@tailscope/tracegen';
import { buildStoreApi } from '../src/server/app';
import { migrate, openStore, sql, type Store } from '../src/store';
import { detectAccelerators } from '../src/store/schema/accelerators';
import { callBucketCoverage, materializeCallBuckets } from '../src/store/call-buckets/cache';
import { materializeOpenBuckets } from '../src/store/call-buckets/open';
import { episodeQueries, selectEpisodeWindows } from '../src/store/episodes';
import { ingestScenario, insertSpans } from './analysis-support';

/**
 * The open chunk's stored buckets (call-buckets-open.ts) on a store that keeps growing, as a
 * running server's does: a range ending "now" reads the settled buckets of the open chunk and
 * computes live only the newest ones, and answers exactly as the all-live path, before and after
 * more spans arrive (new traces, which leave stored buckets valid; late spans into old buckets,
 * which send them live until the next pass rebuilds them), read-only, and once the chunk closes.
 */

const START = '2024-03-01T06:00:00Z'; // a chunk start (10-minute chunks, epoch-aligned)
const START_MS = Date.parse(START);
const MIN = 60_000;
const msToNs = (ms: number): bigint => BigInt(ms) * 1_000_000n;

async function episodes(store: Store, fromMs: number, toMs: number): Promise<EpisodesResponse> {
  const api = await buildStoreApi(store);
  try {
    const res = await api.inject({
      method: 'GET',
      url: `/api/v1/episodes?from=${fromMs}&to=${toMs}`,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<EpisodesResponse>();
  } finally {
    await api.close();
  }
}

/** The same question with the stored tables switched off: the all-live path. */
async function live<T>(store: Store, f: () => Promise<T>): Promise<T> {
  const had = store.accelerators.callBuckets;
  store.accelerators.callBuckets = false;
  try {
    return await f();
  } finally {
    store.accelerators.callBuckets = had;
  }
}

const sortRows = <T>(rows: T[]): T[] =>
  [...rows].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

/** Stored-and-live against all-live: the API answer and the raw windows (10 s and 30 s). */
async function expectSameAsLive(store: Store, toMs: number): Promise<void> {
  expect(await episodes(store, START_MS, toMs)).toEqual(
    await live(store, () => episodes(store, START_MS, toMs)),
  );
  for (const windowMs of [10_000, 30_000]) {
    const scope = { fromNs: msToNs(START_MS), toNs: msToNs(toMs), windowMs };
    const fromStore = await selectEpisodeWindows(store, scope);
    expect(fromStore.length).toBeGreaterThan(100);
    expect(sortRows(fromStore)).toEqual(
      sortRows(await live(store, () => selectEpisodeWindows(store, scope))),
    );
  }
}

const coveredBuckets = async (store: Store, toMs: number): Promise<number> =>
  (await callBucketCoverage(store, { fromNs: msToNs(START_MS), toNs: msToNs(toMs) })).buckets
    .length;

describe('episodes over a range ending now: the open chunk stored per bucket', () => {
  let dir: string;
  let store: Store;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tailscope-episodes-open-'));
    store = openStore({ dataDir: dir });
    await migrate(store);
    // 8 minutes of the microservices preset (with its planted customer fault).
    await ingestScenario(store, presetSpec('microservices', { ratePerSecond: 5 }), {
      requests: 2400,
      seed: 5,
      start: START,
    });
  }, 240_000);
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const now1 = START_MS + 8 * MIN + 20_000;
  const now2 = START_MS + 9 * MIN + 20_000;

  it('stores the settled buckets of the open chunk and answers as live', async () => {
    // The chunk is open at now1: the chunk materializer builds nothing, the open one every
    // bucket that ended 10 s ago (8 min 10 s: 49 buckets).
    expect(
      await materializeCallBuckets(store, {
        fromNs: msToNs(START_MS),
        toNs: msToNs(now1),
        nowNs: msToNs(now1),
      }),
    ).toEqual({ chunks: 0 });
    expect(await materializeOpenBuckets(store, { nowNs: msToNs(now1) })).toEqual({ chunks: 49 });
    expect(await materializeOpenBuckets(store, { nowNs: msToNs(now1) })).toEqual({ chunks: 0 });
    expect(await coveredBuckets(store, now1)).toBe(49);
    // Stored up to 8:10, live after it.
    const queries = await episodeQueries(store, {
      fromNs: msToNs(START_MS),
      toNs: msToNs(now1),
      windowMs: 10_000,
    });
    expect(queries).toHaveLength(2);
    expect(queries[0]?.text).toContain('bucket, version');
    await expectSameAsLive(store, now1);
  }, 240_000);

  it('keeps stored buckets through new traces, and sends late spans live until rebuilt', async () => {
    // One more minute of new requests (other trace ids): only the bucket they start in changes.
    await ingestScenario(store, presetSpec('microservices', { ratePerSecond: 5 }), {
      requests: 300,
      seed: 6,
      start: new Date(START_MS + 8 * MIN).toISOString(),
    });
    expect(await coveredBuckets(store, now2)).toBe(48);
    await expectSameAsLive(store, now2);
    // Late spans: a new trace into bucket 6 (1:05), and a call added to an existing trace at
    // ~3:05 (a client span under one of its spans, to a service nothing else calls).
    const [parent] = await store.query<{ t: string; s: string; svc: string; ts: string }>(sql`
      SELECT TraceId AS t, SpanId AS s, ServiceName AS svc,
        toString(toUnixTimestamp64Nano(Timestamp)) AS ts
      FROM otel_traces
      WHERE Timestamp >= fromUnixTimestamp64Milli(${START_MS + 3 * MIN + 4000})
        AND Timestamp < fromUnixTimestamp64Milli(${START_MS + 3 * MIN + 6000})
        AND SpanKind = 'Server'
      ORDER BY Timestamp LIMIT 1`);
    expect(parent).toBeDefined();
    const base = { attributes: {}, resource: {}, durationNs: 2_000_000n };
    await insertSpans(store, [
      {
        ...base,
        traceId: 'feedfacefeedfacefeedfacefeedface',
        spanId: 'feedfacefeedface',
        parentSpanId: '',
        service: 'frontend',
        name: 'late',
        kind: 'Server',
        startNs: msToNs(START_MS + MIN + 5000),
      },
      {
        ...base,
        traceId: parent?.t ?? '',
        spanId: 'abcdefabcdefabcd',
        parentSpanId: parent?.s ?? '',
        service: parent?.svc ?? '',
        name: 'late call',
        kind: 'Client',
        startNs: BigInt(parent?.ts ?? '0') + 1_000_000n,
        attributes: { 'peer.service': 'latecomer' },
      },
    ]);
    // Bucket 6 no longer matches: the rest of the range goes live, and answers the same.
    expect(await coveredBuckets(store, now2)).toBe(6);
    await expectSameAsLive(store, now2);
    const windows = await selectEpisodeWindows(store, {
      fromNs: msToNs(START_MS),
      toNs: msToNs(now2),
      windowMs: 10_000,
    });
    expect(windows.some((w) => w.service === 'latecomer')).toBe(true);
    // The next pass rebuilds the two late buckets (the late call's trace may reach into a
    // third) and the 6 new settled ones: every bucket to 9:10 is stored again.
    const rebuilt = await materializeOpenBuckets(store, { nowNs: msToNs(now2) });
    expect(rebuilt.chunks).toBeGreaterThanOrEqual(2 + 6 + 1);
    expect(rebuilt.chunks).toBeLessThanOrEqual(3 + 6 + 1);
    expect(await coveredBuckets(store, now2)).toBe(55);
    await expectSameAsLive(store, now2);
    // Rebuilt buckets replaced their old rows: one version per stored bucket.
    const [dups] = await store.query<{ n: string }>(sql`
      SELECT toString(count()) AS n FROM (
        SELECT bucket FROM tailscope_call_buckets GROUP BY bucket HAVING uniqExact(version) > 1)`);
    expect(dups?.n).toBe('0');
  }, 240_000);

  it('reads the stored buckets read-only, and hands over to the closed chunk', async () => {
    const expected = await live(store, () => episodes(store, START_MS, now2));
    await store.close();
    const ro = openStore({ dataDir: dir, readOnly: true });
    try {
      expect((await detectAccelerators(ro)).openCallBuckets).toBe(true);
      expect(await coveredBuckets(ro, now2)).toBe(55);
      expect(await materializeOpenBuckets(ro, { nowNs: msToNs(now2 + MIN) })).toEqual({
        chunks: 0,
      });
      expect(await episodes(ro, START_MS, now2)).toEqual(expected);
    } finally {
      await ro.close();
    }
    store = openStore({ dataDir: dir });
    await detectAccelerators(store);
    // The chunk closes (11:00); until the chunk pass stores it whole, the open pass keeps its
    // buckets current: 9:10-10:00 of it and 10:00-11:00 of the next (empty), 11 buckets.
    const now3 = START_MS + 11 * MIN + 10_000;
    expect(await materializeOpenBuckets(store, { nowNs: msToNs(now3) })).toEqual({ chunks: 11 });
    expect(await coveredBuckets(store, now3)).toBe(66);
    await expectSameAsLive(store, now3);
    // Stored whole: its open records dropped, the same answer.
    expect(
      await materializeCallBuckets(store, {
        fromNs: msToNs(START_MS),
        toNs: msToNs(now3),
        nowNs: msToNs(now3),
      }),
    ).toEqual({ chunks: 1 });
    const cov = await callBucketCoverage(store, {
      fromNs: msToNs(START_MS),
      toNs: msToNs(now3),
    });
    expect(cov.chunks).toHaveLength(1);
    // Only the next chunk's 6 bucket records are left.
    const [open] = await store.query<{ n: string; lo: string }>(
      sql`SELECT toString(count()) AS n, toString(min(bucket) * 10000) AS lo FROM tailscope_call_bucket_open`,
    );
    expect(open).toEqual({ n: '6', lo: String(START_MS + 10 * MIN) });
    await expectSameAsLive(store, now3);
  }, 240_000);
});
