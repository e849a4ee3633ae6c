import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EpisodesResponse, IncidentsResponse } from '@tailscope/contracts';
import { presetSpec } from '@tailscope/tracegen';
import { setAnswerCache } from '../src/cache';
import { buildStoreApi } from '../src/server/app';
import type { Store } from '../src/store';
import { ingestScenario, insertSpans, openTempStore } from './analysis-support';
import { networkRun } from './incidents-support';
import { migrate } from '../src/store/schema/migrations';
import { ident, sql } from '../src/store/sql/template';
import { copyCovers, TRACE_SPANS_TABLES } from '../src/store/traces/trace-spans';
import {
  copyChunk,
  staleChunks,
  startTraceSpansBackfill,
} from '../src/store/traces/trace-spans-backfill';

/**
 * GET /api/v1/incidents on the real embedded engine: the planted `microservices` fault (customer,
 * one pod, 10-40x slower in [40%, 60%) of the run) is one incident naming customer-00; a
 * network-shaped fault (the client waits outside a steady server span) is named as network or
 * queueing before the server, and a later fault two hops down is another incident naming that
 * callee; a fault-free run has no incident.
 */

const START = '2024-03-01T05:00:00Z';
const START_MS = Date.parse(START);
const MIN = 60_000;

async function incidents(store: Store, query: string): Promise<IncidentsResponse> {
  const api = await buildStoreApi(store);
  try {
    const t = performance.now();
    const res = await api.inject({ method: 'GET', url: `/api/v1/incidents?${query}` });
    if (process.env.INCIDENTS_PRINT)
      console.log(`${query}: ${(performance.now() - t).toFixed(0)} ms\n${res.body}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<IncidentsResponse>();
  } finally {
    await api.close();
  }
}

describe('incidents on the microservices preset', () => {
  let store: Store;
  let close: () => Promise<void>;
  let fault: { startMs: number; endMs: number; host: string; service: string } | undefined;

  beforeAll(async () => {
    ({ store, close } = await openTempStore('incidents-micro'));
    // 2,400 requests at 4/s: 10 minutes, ~140,000 spans; the fault from 4:00 to 6:00.
    const { truth } = await ingestScenario(
      store,
      presetSpec('microservices', { ratePerSecond: 4 }),
      { requests: 2400, seed: 3, start: START },
    );
    fault = truth.app?.fault;
  }, 120_000);
  afterAll(async () => close());

  it('is one incident, customer-00 its top root cause', async () => {
    expect(fault).toBeDefined();
    if (!fault) return;
    const body = await incidents(store, `from=${START_MS}&to=${START_MS + 10 * MIN}`);
    expect(body.incidents).toHaveLength(1);
    const [inc] = body.incidents;
    if (!inc) return;
    const windowMs = (body.windowSeconds ?? 10) * 1000;
    expect(Math.abs(inc.fromMs - (START_MS + fault.startMs))).toBeLessThanOrEqual(windowMs);
    expect(Math.abs(inc.toMs - (START_MS + fault.endMs))).toBeLessThanOrEqual(windowMs);
    // Every request in the fault's 2 minutes calls customer once: about 480.
    expect(inc.requests).toBeGreaterThan(400);
    expect(inc.requests).toBeLessThan(560);
    const [top, second] = inc.rootCauses;
    expect(top).toMatchObject({ service: fault.service, host: fault.host });
    expect(top?.evidence.kind).toBe('self');
    // Its MySQL calls rose with its own time: counted for it, not a candidate of their own.
    expect(top?.evidence.foldedMs).toBeGreaterThan(0);
    expect(inc.rootCauses.some((c) => c.service === 'mysql')).toBe(false);
    expect(top?.score).toBeGreaterThan((second?.score ?? 0) + (body.tieMargin ?? 0.1));
    expect(top?.evidence.tiedWith).toEqual([]);
    // The calls into customer and its MySQL calls, and the requests (the root operation's own
    // series, frontend's) they slowed.
    expect(new Set(inc.affected.map((a) => a.service))).toEqual(
      new Set(['customer', 'mysql', 'frontend']),
    );
    // Exemplars to open: slow ones in the incident, slowest first; typical ones before it.
    const ex = inc.exemplars;
    expect(ex?.slow.length).toBeGreaterThan(0);
    expect(ex?.typical.length).toBeGreaterThan(0);
    const slowMs = ex?.slow.map((e) => e.durationMs) ?? [];
    expect(slowMs).toEqual([...slowMs].sort((a, b) => b - a));
    expect(Math.min(...slowMs)).toBeGreaterThan(
      Math.max(...(ex?.typical ?? []).map((e) => e.durationMs)),
    );
    // The critical-path difference: customer's own time and its MySQL calls (uninstrumented,
    // shown as mysql: the difference does not fold them) grew most, both on its process.
    const diff = inc.criticalPathDiff ?? [];
    expect(new Set(diff.slice(0, 2).map((d) => d.service))).toEqual(new Set(['customer', 'mysql']));
    expect(diff[0]?.deltaMs).toBeGreaterThan(0);
    expect(diff.slice(2).every((d) => d.deltaMs < (diff[1]?.deltaMs ?? 0) / 5)).toBe(true);
    expect(diff[0]?.networkDeltaMs).toBeLessThan((diff[0]?.deltaMs ?? 0) / 10);
    // The incident is made of exactly the range's episodes (the same judgement, shared).
    const api = await buildStoreApi(store);
    try {
      const res = await api.inject({
        method: 'GET',
        url: `/api/v1/episodes?from=${START_MS}&to=${START_MS + 10 * MIN}`,
      });
      const episodes = res.json<EpisodesResponse>().episodes;
      expect(episodes.length).toBeGreaterThanOrEqual(2);
      // Besides, the requests' own series (the root operation, judged by incidents only).
      const calls = inc.affected.filter((a) => a.service !== 'frontend');
      expect(new Set(episodes.map((e) => `${e.service} ${e.operation ?? '*'}`))).toEqual(
        new Set(calls.map((a) => `${a.service} ${a.operation}`)),
      );
    } finally {
      await api.close();
    }
  });

  it("answers the same from the spans table, during the narrow copy's backfill and after it", async () => {
    const range = `from=${START_MS}&to=${START_MS + 10 * MIN}`;
    const window = [
      BigInt(START_MS) * 1_000_000n,
      BigInt(START_MS + 11 * MIN) * 1_000_000n,
    ] as const;
    // Off, so every answer is computed again (the tests after it compute theirs anyway).
    setAnswerCache(store, null);
    expect(store.accelerators.traceSpans).toBe(true);
    // A fresh store: the view copied every span, no boundary.
    expect(await copyCovers(store, ...window)).toBe(true);
    const narrow = JSON.stringify(await incidents(store, range));
    store.accelerators.traceSpans = false;
    try {
      expect(JSON.stringify(await incidents(store, range))).toBe(narrow);
    } finally {
      store.accelerators.traceSpans = true;
    }
    // As a store upgraded to version 12 with these spans stored: the copy empty, its boundary
    // after them, every minute left to the backfill.
    for (const t of TRACE_SPANS_TABLES) await store.command(sql`DROP TABLE ${ident(t)}`);
    await store.command(sql`DELETE FROM tailscope_migrations WHERE version >= 12`);
    await migrate(store);
    expect(await copyCovers(store, ...window)).toBe(false);
    expect(JSON.stringify(await incidents(store, range))).toBe(narrow);
    // Half-way: the newest minutes copied, the older ones read from the spans table.
    const stale = await staleChunks(store);
    expect(stale.length).toBeGreaterThan(5);
    for (const p of stale.slice(0, stale.length >> 1))
      await copyChunk(store, p.chunk, BigInt(Date.now()) * 1_000_000n);
    expect(await copyCovers(store, ...window)).toBe(false);
    expect(JSON.stringify(await incidents(store, range))).toBe(narrow);
    const backfill = startTraceSpansBackfill(store);
    try {
      await backfill.drain();
    } finally {
      await backfill.stop();
    }
    expect(await copyCovers(store, ...window)).toBe(true);
    expect(JSON.stringify(await incidents(store, range))).toBe(narrow);
  });

  it('filters by service', async () => {
    const range = `from=${START_MS}&to=${START_MS + 10 * MIN}`;
    expect((await incidents(store, `${range}&service=customer`)).incidents).toHaveLength(1);
    expect((await incidents(store, `${range}&service=route`)).incidents).toEqual([]);
  });
});

describe('incidents on hand-made requests', () => {
  it('names network or queueing before a steady server, and a slow callee two hops down', async () => {
    const { store, close } = await openTempStore('incidents-net');
    try {
      // Two faults apart in time: the client waits outside api-0's server span from 2:00 to
      // 3:30; db-0's own time is 10x from 6:00 to 7:30 (api's calls slow with it).
      await insertSpans(
        store,
        networkRun({
          startMs: START_MS,
          requests: 3000,
          ratePerSecond: 5,
          seed: 5,
          netFault: { from: 0.2, to: 0.35 },
          dbFault: { from: 0.6, to: 0.75 },
        }),
      );
      const body = await incidents(store, `from=${START_MS}&to=${START_MS + 10 * MIN}`);
      expect(body.incidents).toHaveLength(2);
      const [net, db] = body.incidents;
      const top = net?.rootCauses[0];
      expect(top).toMatchObject({ service: 'api', host: 'api-0' });
      expect(top?.evidence.kind).toBe('network');
      expect(top?.cause).toMatch(/^network or queueing before api on api-0/);
      // The server span did not grow: api's own time is no candidate.
      expect(net?.rootCauses.some((c) => c.service === 'api' && c.evidence.kind === 'self')).toBe(
        false,
      );
      // The db fault: one incident with api's slowed calls, db-0's own time its cause.
      expect(db?.fromMs).toBeGreaterThanOrEqual(START_MS + 6 * MIN - 10_000);
      expect(new Set(db?.affected.map((a) => a.service))).toEqual(
        new Set(['api', 'db', 'frontend']),
      );
      expect(db?.affected.find((a) => a.service === 'frontend')?.operation).toBe('GET /home');
      expect(db?.rootCauses[0]).toMatchObject({ service: 'db', host: 'db-0', operation: 'query' });
      expect(db?.rootCauses[0]?.evidence.kind).toBe('self');
      // Its typical requests come from after the network incident, not from inside it: every
      // request of the db fault is slower than their p90, so the slow sample is full.
      expect(db?.rootCauses[0]?.evidence.slowRequests).toBe(100);
    } finally {
      await close();
    }
  });

  it("finds requests slower with no call slower: the root's own time", async () => {
    const { store, close } = await openTempStore('incidents-root');
    try {
      // From 4:00 to 5:30 the frontend waits 20-40 ms before its call to api (a smaller worker
      // pool in front of it); no call got slower.
      await insertSpans(
        store,
        networkRun({
          startMs: START_MS,
          requests: 3000,
          ratePerSecond: 5,
          seed: 7,
          rootFault: { from: 0.4, to: 0.55 },
        }),
      );
      const range = `from=${START_MS}&to=${START_MS + 10 * MIN}`;
      const body = await incidents(store, range);
      expect(body.incidents).toHaveLength(1);
      const [inc] = body.incidents;
      expect(inc?.fromMs).toBeGreaterThanOrEqual(START_MS + 4 * MIN - 10_000);
      expect(inc?.toMs).toBeLessThanOrEqual(START_MS + 5.5 * MIN + 10_000);
      expect(inc?.affected).toEqual([
        {
          service: 'frontend',
          operation: 'GET /home',
          ratio: expect.any(Number) as number,
          kind: 'root',
        },
      ]);
      expect(inc?.rootCauses[0]).toMatchObject({ service: 'frontend', operation: 'GET /home' });
      expect(inc?.rootCauses[0]?.evidence.kind).toBe('self');
      // Episodes judge calls only: none got slower.
      const api = await buildStoreApi(store);
      try {
        const res = await api.inject({ method: 'GET', url: `/api/v1/episodes?${range}` });
        expect(res.json<EpisodesResponse>().episodes).toEqual([]);
      } finally {
        await api.close();
      }
    } finally {
      await close();
    }
  });

  it('finds no incident in a fault-free run', async () => {
    const { store, close } = await openTempStore('incidents-calm');
    try {
      await insertSpans(
        store,
        networkRun({ startMs: START_MS, requests: 3000, ratePerSecond: 5, seed: 6 }),
      );
      const body = await incidents(store, `from=${START_MS}&to=${START_MS + 10 * MIN}`);
      expect(body.incidents).toEqual([]);
    } finally {
      await close();
    }
  });
});
