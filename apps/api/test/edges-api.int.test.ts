import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EdgesResponse, FanoutsResponse } from '@tailscope/contracts';
import type { SpanRecord } from '@tailscope/analysis';
import { buildStoreApi, type Api } from '../src/server/app';
import type { Store } from '../src/store';
import { insertSpans, openTempStore, T0_NS } from './analysis-support';
import { callShapes } from './calls-support';

/**
 * GET /api/v1/edges and the empty state of /api/v1/fanouts over HTTP (Fastify inject): contract
 * fields, filters, 400s, and why no fan-out was found.
 */

const MS = 1_000_000n;
const FROM_MS = Number(T0_NS / MS);
const range = `from=${FROM_MS}&to=${FROM_MS + 200 * 50}`;

/** Requests whose only repeated calls are a loop of cross-service calls behind a wrapper. */
function loopsOnly(requests: number): SpanRecord[] {
  const out: SpanRecord[] = [];
  for (let q = 0; q < requests; q++) {
    const t0 = T0_NS + 10n ** 12n + BigInt(q) * 50n * MS;
    const traceId = q.toString(16).padStart(32, '0');
    const base = { traceId, resource: {}, attributes: {} };
    out.push({
      ...base,
      spanId: 'root'.padEnd(16, '0'),
      parentSpanId: '',
      kind: 'Server',
      service: 'driver',
      name: 'FindNearest',
      startNs: t0,
      durationNs: 40n * MS,
    });
    for (let i = 0; i < 5; i++)
      out.push({
        ...base,
        spanId: `c${i}`.padEnd(16, '0'),
        parentSpanId: 'root'.padEnd(16, '0'),
        kind: 'Internal',
        service: 'redis',
        name: 'GetDriver',
        startNs: t0 + BigInt(i) * 5n * MS,
        durationNs: 5n * MS,
      });
  }
  return out;
}

describe('edges API', () => {
  let store: Store;
  let close: () => Promise<void>;
  let api: Api;

  beforeAll(async () => {
    ({ store, close } = await openTempStore('edges-api'));
    await insertSpans(store, [...callShapes(9, 200), ...loopsOnly(20)]);
    api = await buildStoreApi(store);
  });
  afterAll(async () => {
    await api.close();
    await close();
  });

  const get = async (url: string): Promise<{ status: number; json: unknown }> => {
    const res = await api.inject({ method: 'GET', url });
    return { status: res.statusCode, json: res.json() };
  };
  const edges = async (url: string) => (await get(url)).json as EdgesResponse;
  const fanouts = async (url: string) => (await get(url)).json as FanoutsResponse;

  it('GET /api/v1/edges lists every edge with its structure, duplicates and skew', async () => {
    expect((await get(`/api/v1/edges?${range}`)).status).toBe(200);
    const res = { json: await edges(`/api/v1/edges?${range}`) };
    const route = res.json.edges.find(
      (e) => e.parentOperation === 'HTTP GET /dispatch' && e.leafService === 'route',
    );
    expect(route?.structureShares).toBeDefined();
    expect(route?.wrappedCalls).toBeGreaterThan(0);
    expect(res.json.edges.map((e) => e.structure)).toEqual(
      expect.arrayContaining(['pool', 'sequential', 'single']),
    );
    for (const e of res.json.edges) {
      expect(e.poolSize !== undefined).toBe(e.structure === 'pool');
      expect(e.queueWaitMs !== undefined).toBe(e.structure === 'pool');
    }
    expect(res.json.duplicates).toBeGreaterThan(0);
    expect(res.json.skew.length).toBeGreaterThan(0);
  });

  it('filters by parent and leaf service', async () => {
    const res = {
      json: await edges(`/api/v1/edges?${range}&parentService=driver&leafService=redis`),
    };
    expect(res.json.edges.map((e) => `${e.parentService}>${e.leafService}`)).toEqual([
      'driver>redis',
    ]);
    expect(res.json.edges[0]?.structure).toBe('sequential');
  });

  it('answers 400 naming a bad parameter', async () => {
    const res = await get(`/api/v1/edges?from=yesterday`);
    expect(res.status).toBe(400);
    expect((res.json as { error: string }).error).toMatch(/from/);
  });

  it('says why /api/v1/fanouts found none: only sequential calls, and shows the edges', async () => {
    const from = FROM_MS + 1_000_000;
    const res = { json: await fanouts(`/api/v1/fanouts?from=${from}&to=${from + 20 * 50}`) };
    expect(res.json.fanouts).toEqual([]);
    expect(res.json.hint).toMatch(/^Only sequential repeated calls: 1 edge/);
    expect(res.json.edges).toEqual([
      {
        parentService: 'driver',
        parentOperation: 'FindNearest',
        leafService: 'redis',
        leafOperation: 'GetDriver',
        requests: 20,
        structure: 'sequential',
      },
    ]);
  });

  it('says when a range holds no calls at all', async () => {
    const res = {
      json: await fanouts(`/api/v1/fanouts?from=${FROM_MS - 10_000}&to=${FROM_MS - 5000}`),
    };
    expect(res.json.fanouts).toEqual([]);
    expect(res.json.hint).toMatch(/^No calls/);
    expect(res.json.edges).toEqual([]);
  });
});
