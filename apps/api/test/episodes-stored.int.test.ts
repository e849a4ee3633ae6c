import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EpisodesResponse } from '@tailscope/contracts';
import { presetSpec, type ScenarioTruth } from '@tailscope/tracegen';
import { buildStoreApi } from '../src/server/app';
import { migrate, openStore, sql, type Store } from '../src/store';
import { detectAccelerators } from '../src/store/schema/accelerators';
import { callBucketCoverage, materializeCallBuckets } from '../src/store/call-buckets/cache';
import { episodeQueries, selectEpisodeWindows } from '../src/store/episodes';
import { selectSpanSplit, spanSplitQueries } from '../src/store/episodes/spans';
import { ingestScenario, insertSpans } from './analysis-support';

/**
 * Episodes from the stored 10 s call buckets (tailscope_call_buckets) against the live path on
 * the same data: the `microservices` preset with its planted fault (customer, one pod, 10-40x
 * slower during [40%, 60%) of the run). Both paths sum the same fine histograms, so windows and
 * episodes are equal exactly (unsampled data: weights are 1, sums exact); a store without the
 * tables, or read-only, still answers.
 */

const START = '2024-03-01T05:00:00Z';
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

/** The same question with the stored table switched off: the live path. */
async function live<T>(store: Store, f: () => Promise<T>): Promise<T> {
  const had = store.accelerators.callBuckets;
  store.accelerators.callBuckets = false;
  try {
    return await f();
  } finally {
    store.accelerators.callBuckets = had;
  }
}

const sortRows = <T extends { kind: string; service: string; host: string; window: number }>(
  rows: T[],
): T[] => [...rows].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

describe('episodes from stored call buckets', () => {
  let dir: string;
  let store: Store;
  let truth: ScenarioTruth;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tailscope-episodes-stored-'));
    store = openStore({ dataDir: dir });
    await migrate(store);
    ({ truth } = await ingestScenario(store, presetSpec('microservices', { ratePerSecond: 5 }), {
      requests: 6000,
      seed: 3,
      start: START,
    }));
  }, 240_000);
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers as the live path, with the planted fault, from stored buckets', async () => {
    const to = START_MS + 20 * MIN;
    const before = await episodes(store, START_MS, to);
    // Nothing stored yet: the whole range goes live.
    expect(
      (await callBucketCoverage(store, { fromNs: msToNs(START_MS), toNs: msToNs(to) })).chunks,
    ).toEqual([]);
    // The last chunk is still open at "now" = 10 s after the run: only two of three are built.
    const built = await materializeCallBuckets(store, {
      fromNs: msToNs(START_MS),
      toNs: msToNs(to + 10 * MIN),
      nowNs: msToNs(START_MS + 21 * MIN + 10_000),
    });
    expect(built.chunks).toBe(2);
    const cov = await callBucketCoverage(store, { fromNs: msToNs(START_MS), toNs: msToNs(to) });
    expect(cov.splitNs).toBe(msToNs(START_MS + 20 * MIN));
    const stored = await episodes(store, START_MS, to);
    expect(stored).toEqual(before);
    const fault = truth.app?.fault;
    expect(fault).toBeDefined();
    const callee = stored.episodes.filter((e) => e.kind === 'callee' && e.service === 'customer');
    expect(callee).toHaveLength(1);
    const windowMs = stored.windowSeconds * 1000;
    expect(Math.abs((callee[0]?.fromMs ?? 0) - (START_MS + (fault?.startMs ?? 0)))).toBeLessThan(
      windowMs + 1,
    );
    expect(Math.abs((callee[0]?.toMs ?? 0) - (START_MS + (fault?.endMs ?? 0)))).toBeLessThan(
      windowMs + 1,
    );
    // Built once: a second pass finds nothing stale.
    const again = await materializeCallBuckets(store, {
      fromNs: msToNs(START_MS),
      toNs: msToNs(to + 10 * MIN),
      nowNs: msToNs(START_MS + 21 * MIN + 10_000),
    });
    expect(again.chunks).toBe(0);
    // Built again (a later version) in parts of a few buckets (a dense chunk's way:
    // SPANS_PER_BUILD): the same rows, so the same episodes.
    const rows = () =>
      store.query<Record<string, unknown>>(sql`
        SELECT bucket, kind, service, host, parentService, parentOperation, operation, calls,
          toString(weightedCalls) AS w, bins, binCalls, toString(binWeights) AS bw
        FROM tailscope_call_buckets
        WHERE (chunk, version) IN (SELECT chunk, max(version) FROM tailscope_call_bucket_chunks GROUP BY chunk)
        ORDER BY bucket, kind, service, host, parentService, parentOperation, operation`);
    const whole = await rows();
    await store.command(sql`TRUNCATE TABLE tailscope_call_bucket_chunks`);
    const parted = await materializeCallBuckets(
      store,
      {
        fromNs: msToNs(START_MS),
        toNs: msToNs(to + 10 * MIN),
        nowNs: msToNs(START_MS + 21 * MIN + 20_000),
      },
      { spansPerBuild: 2000n },
    );
    expect(parted.chunks).toBe(2);
    const inParts = await rows();
    expect(whole.length).toBeGreaterThan(100);
    expect(inParts).toEqual(whole);
    expect(await episodes(store, START_MS, to)).toEqual(before);
  }, 240_000);

  it('merges stored buckets with a live tail into the same windows', async () => {
    // From 3 s into the run (its bucket read whole from the store: judgedFromNs), to 25 min
    // (the open chunk live), 30 s windows (three buckets each), one service.
    const scope = {
      fromNs: msToNs(START_MS + 3000),
      toNs: msToNs(START_MS + 25 * MIN),
      windowMs: 30_000,
      service: 'customer',
    };
    const queries = await episodeQueries(store, scope);
    expect(queries).toHaveLength(2);
    expect(queries[0]?.text).toContain('FROM tailscope_call_buckets');
    // The stored read starts at the run's first bucket, not the one after it.
    expect(Object.values(queries[0]?.params ?? {})).toContain(String(START_MS / 10_000));
    const fromStore = await selectEpisodeWindows(store, scope);
    const fromSpans = await live(store, () => selectEpisodeWindows(store, scope));
    expect(fromStore.length).toBeGreaterThan(40);
    expect(sortRows(fromStore)).toEqual(sortRows(fromSpans));
    // Clamped to the stored spans at both ends (no call starts beyond them), the buckets
    // cut by the ends are read whole: no live query at all.
    const [bounds] = await store.query<{ lo: string; hi: string }>(
      sql`SELECT toString(toUnixTimestamp64Nano(min(Timestamp))) AS lo,
        toString(toUnixTimestamp64Nano(max(Timestamp))) AS hi FROM otel_traces`,
    );
    const clamped = {
      fromNs: BigInt(bounds?.lo ?? '0'),
      toNs: BigInt(bounds?.hi ?? '0') + 1n,
      windowMs: 10_000,
      clampedTo: true,
    };
    expect(clamped.toNs % 10_000_000_000n).not.toBe(0n);
    expect(clamped.toNs).toBeLessThan(msToNs(START_MS + 20 * MIN));
    const only = await episodeQueries(store, clamped);
    expect(only).toHaveLength(1);
    expect(only[0]?.text).toContain('FROM tailscope_call_buckets');
    expect(sortRows(await selectEpisodeWindows(store, clamped))).toEqual(
      sortRows(await live(store, () => selectEpisodeWindows(store, clamped))),
    );
    // 15 s windows are no multiple of a bucket: all live.
    expect(await episodeQueries(store, { ...scope, windowMs: 15_000 })).toHaveLength(1);
    // The span split of the callees the same way: stored buckets, live head and tail.
    const callees = fromSpans.filter((r) => r.kind === 'callee');
    const split = {
      fromNs: msToNs(START_MS + 3000),
      toNs: msToNs(START_MS + 25 * MIN),
      windowNs: 30_000_000_000n,
      services: [...new Set(callees.map((r) => r.service))],
      hosts: [...new Set(callees.map((r) => r.host))],
      maxRows: 50_000,
    };
    const parts = await spanSplitQueries(store, split);
    expect(parts).toHaveLength(3);
    expect(parts[0]?.text).toContain('FROM tailscope_span_split_buckets');
    const splitRows = await selectSpanSplit(store, split);
    // The run's 40 windows of its one callee answered by SERVER spans, with time in them.
    expect(splitRows.length).toBeGreaterThanOrEqual(40);
    expect(splitRows.every((r) => r.calls > 0 && r.serverMs > 0)).toBe(true);
    expect(splitRows).toEqual(await live(store, () => selectSpanSplit(store, split)));
  }, 240_000);

  it('sends a chunk back to live when late spans arrive, until it is built again', async () => {
    const late = msToNs(START_MS + 5 * MIN);
    await insertSpans(store, [
      {
        traceId: 'feedfacefeedfacefeedfacefeedface',
        spanId: 'feedfacefeedface',
        parentSpanId: '',
        service: 'frontend',
        name: 'late',
        kind: 'Server',
        startNs: late,
        durationNs: 1_000_000n,
        attributes: {},
        resource: {},
      },
    ]);
    const range = { fromNs: msToNs(START_MS), toNs: msToNs(START_MS + 20 * MIN) };
    expect((await callBucketCoverage(store, range)).chunks).toEqual([]);
    const rebuilt = await materializeCallBuckets(store, {
      ...range,
      nowNs: msToNs(START_MS + 21 * MIN + 10_000),
    });
    expect(rebuilt.chunks).toBe(1);
    expect((await callBucketCoverage(store, range)).chunks).toHaveLength(2);
  }, 240_000);

  it('answers read-only from what is stored, and without the tables, live', async () => {
    const to = START_MS + 20 * MIN;
    const expected = await live(store, () => episodes(store, START_MS, to));
    await store.close();
    const ro = openStore({ dataDir: dir, readOnly: true });
    try {
      expect((await detectAccelerators(ro)).callBuckets).toBe(true);
      const range = { fromNs: msToNs(START_MS), toNs: msToNs(to) };
      expect((await callBucketCoverage(ro, range)).chunks).toHaveLength(2);
      expect(await materializeCallBuckets(ro, { ...range, nowNs: msToNs(Date.now()) })).toEqual({
        chunks: 0,
      });
      expect(await episodes(ro, START_MS, to)).toEqual(expected);
    } finally {
      await ro.close();
    }
    store = openStore({ dataDir: dir });
    await store.client.command({ query: 'DROP TABLE tailscope_call_buckets' });
    expect((await detectAccelerators(store)).callBuckets).toBe(false);
    expect(await episodes(store, START_MS, to)).toEqual(expected);
  }, 240_000);
});
