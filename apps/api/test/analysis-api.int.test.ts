import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unpackLeafCalls } from '@tailscope/analysis';
import { buildStoreApi, type Api } from '../src/server/app';
import type { Store } from '../src/store';
import { loadLeafCalls } from '../src/store/fanouts';
import { insertSpans, mixedSpans, openTempStore, T0_NS } from './analysis-support';

/** The analysis routes over HTTP (Fastify inject): contract field names, parameters, 400s, OpenAPI. */

const FROM_MS = Number(T0_NS / 1_000_000n);
const TO_MS = FROM_MS + 800 * 40;
const range = `from=${FROM_MS}&to=${TO_MS}`;

describe('analysis API', () => {
  let store: Store;
  let close: () => Promise<void>;
  let api: Api;

  beforeAll(async () => {
    ({ store, close } = await openTempStore('analysis-api'));
    await insertSpans(store, mixedSpans(5, 800));
    api = await buildStoreApi(store);
  });
  afterAll(async () => {
    await api.close();
    await close();
  });

  const get = async (
    url: string,
  ): Promise<{ status: number; json: unknown; body: Buffer; type: string }> => {
    const res = await api.inject({ method: 'GET', url });
    const type = String(res.headers['content-type'] ?? '');
    return {
      status: res.statusCode,
      json: type.includes('json') ? res.json() : null,
      body: res.rawPayload,
      type,
    };
  };

  it('GET /api/v1/fanouts returns the contract fields, with ms floats', async () => {
    const res = await get(`/api/v1/fanouts?${range}`);
    expect(res.status).toBe(200);
    const body = res.json as { fanouts: Record<string, unknown>[] };
    const first = body.fanouts[0] as Record<string, Record<string, unknown>>;
    expect(Object.keys(first).sort()).toEqual(
      [
        'parentService',
        'parentOperation',
        'leafService',
        'leafOperation',
        'requests',
        'width',
        'table1',
        'amplification',
        'curve',
        'structure',
        'concurrency',
        // Pools also carry their pool size and queue waits (issue #12).
        ...((first.structure as unknown) === 'pool' ? ['poolSize', 'queueWaitMs'] : []),
      ].sort(),
    );
    expect(['parallel', 'pool']).toContain(first.structure);
    expect(Object.keys(first.concurrency ?? {}).sort()).toEqual(['max', 'p50']);
    expect(Object.keys(first.width ?? {}).sort()).toEqual(['max', 'p50']);
    expect(Object.keys(first.table1 ?? {}).sort()).toEqual([
      'allLeaves',
      'oneLeaf',
      'p95Leaves',
      'slowest5pctShareOfP99',
    ]);
    expect(Object.keys(first.table1?.allLeaves as object).sort()).toEqual([
      'p50',
      'p95',
      'p99',
      'p999',
    ]);
    const amp = first.amplification as Record<string, unknown>;
    for (const k of ['thresholdMs', 'observedTailProbability', 'predictedTailProbability']) {
      expect(typeof amp[k]).toBe('number');
    }
    expect(amp.verdict).toMatch(/^(independent|correlated|insufficient-data)$/);
    const curve = first.curve as unknown as {
      width: number;
      observed?: number;
      predicted: number;
    }[];
    expect(curve.some((p) => p.observed !== undefined)).toBe(true);
    expect(curve.find((p) => p.width === 1000)?.observed).toBeUndefined();
    // requests descending
    const req = body.fanouts.map((f) => f.requests as number);
    expect(req).toEqual([...req].sort((a, b) => b - a));
  });

  it('filters by leaf and takes ISO-8601 times; the default last hour holds no 2023 data', async () => {
    const iso = `from=${new Date(FROM_MS).toISOString()}&to=${new Date(TO_MS).toISOString()}`;
    const res = await get(
      `/api/v1/fanouts?${iso}&leafService=kv&leafOperation=put&thresholdMs=12.5`,
    );
    const fanouts = (
      res.json as { fanouts: { leafOperation: string; amplification: { thresholdMs: number } }[] }
    ).fanouts;
    expect(fanouts.length).toBeGreaterThan(0);
    for (const f of fanouts) {
      expect(f.leafOperation).toBe('put');
      expect(f.amplification.thresholdMs).toBe(12.5);
    }
    expect(((await get('/api/v1/fanouts')).json as { fanouts: unknown[] }).fanouts).toEqual([]);
  });

  it('GET /api/v1/stragglers attributes by every dimension asked, with BH q >= p', async () => {
    const res = await get(
      `/api/v1/stragglers?${range}&leafService=kv&leafOperation=get&by=host,sharing_mode,background,attr:zone`,
    );
    expect(res.status).toBe(200);
    const body = res.json as {
      tailThresholdMs: number;
      tailFanouts: number;
      rows: Record<string, unknown>[];
    };
    expect(body.tailThresholdMs).toBeGreaterThan(0);
    expect(body.tailFanouts).toBeGreaterThan(0);
    expect(new Set(body.rows.map((r) => r.dimension))).toEqual(
      new Set(['host', 'sharing_mode', 'background', 'attr:zone']),
    );
    for (const r of body.rows) {
      expect(Object.keys(r).sort()).toEqual(
        [
          'dimension',
          'value',
          'calls',
          'stragglers',
          'trafficShare',
          'stragglerShare',
          'riskRatio',
          'riskRatioLow',
          'riskRatioHigh',
          'pValue',
          'qValue',
          'cause',
          'p99DropMs',
          'explainedBy',
        ].sort(),
      );
      expect(r.qValue as number).toBeGreaterThanOrEqual(r.pValue as number);
    }
    const hostCalls = body.rows
      .filter((r) => r.dimension === 'host')
      .reduce((s, r) => s + (r.calls as number), 0);
    const modeCalls = body.rows
      .filter((r) => r.dimension === 'sharing_mode')
      .reduce((s, r) => s + (r.calls as number), 0);
    expect(hostCalls).toBe(modeCalls);
  });

  it('GET /api/v1/hosts gives per-host windows, fleet windows and episodes', async () => {
    const res = await get(
      `/api/v1/hosts?${range}&leafService=kv&leafOperation=get&windowSeconds=5`,
    );
    expect(res.status).toBe(200);
    const body = res.json as {
      hosts: { host: string; calls: number; windows: { startMs: number }[] }[];
      fleet: { calls: number }[];
      episodes: unknown[];
    };
    expect(body.hosts.length).toBe(8);
    const total = body.hosts.reduce((s, h) => s + h.calls, 0);
    expect(body.fleet.reduce((s, f) => s + f.calls, 0)).toBe(total);
    for (const h of body.hosts) for (const w of h.windows) expect(w.startMs % 5000).toBe(0);
    expect(Array.isArray(body.episodes)).toBe(true);
  });

  it('GET /api/v1/leaves packs the same calls loadLeafCalls returns', async () => {
    const res = await get(`/api/v1/leaves?${range}&leafService=kv&leafOperation=get&attrs=zone`);
    expect(res.status).toBe(200);
    expect(res.type).toBe('application/vnd.tailscope.leaf-calls');
    const { calls, meta } = unpackLeafCalls(new Uint8Array(res.body));
    const direct = await loadLeafCalls(
      store,
      {
        fromNs: BigInt(FROM_MS) * 1_000_000n,
        toNs: BigInt(TO_MS) * 1_000_000n,
        leafService: 'kv',
        leafOperation: 'get',
      },
      { attributeKeys: ['zone'] },
    );
    expect(calls).toEqual(direct.calls);
    expect(meta).toMatchObject({
      leafService: 'kv',
      leafOperation: 'get',
      from: FROM_MS,
      to: TO_MS,
      sampled: false,
    });
  });

  it.each([
    ['/api/v1/fanouts?from=yesterday', /from must be epoch milliseconds or ISO-8601/],
    [`/api/v1/fanouts?from=${TO_MS}&to=${FROM_MS}`, /from .* must be before to/],
    [`/api/v1/fanouts?${range}&thresholdMs=abc`, /thresholdMs/],
    [`/api/v1/fanouts?${range}&thresholdMs=-1`, /thresholdMs must be a number/],
    [`/api/v1/stragglers?${range}&leafOperation=get`, /leafService/],
    [
      `/api/v1/stragglers?${range}&leafService=kv&leafOperation=get&by=host,colour`,
      /by: unknown dimension "colour"/,
    ],
    [
      `/api/v1/stragglers?${range}&leafService=kv&leafOperation=get&by=attr:`,
      /by: unknown dimension "attr:"/,
    ],
    [`/api/v1/stragglers?${range}&leafService=kv&leafOperation=get&tailQuantile=2`, /tailQuantile/],
    [`/api/v1/hosts?${range}&leafService=kv&leafOperation=get&windowSeconds=0`, /windowSeconds/],
    // Windows are counted over the stored data of the range (32 s here), not the range asked.
    [
      `/api/v1/hosts?from=0&to=${TO_MS}&leafService=kv&leafOperation=get&windowSeconds=0.001`,
      /windowSeconds .* more than 10000 windows/,
    ],
    [`/api/v1/leaves?${range}&leafService=kv`, /leafOperation/],
    [`/api/v1/leaves?${range}&leafService=kv&leafOperation=get&attrs=a,,b`, /attrs/],
    [`/api/v1/leaves?${range}&leafService=kv&leafOperation=get&precision=f16`, /precision/],
  ])('400 naming the bad parameter: %s', async (url, message) => {
    const res = await get(url);
    expect(res.status).toBe(400);
    expect((res.json as { error: string }).error).toMatch(message);
  });

  it('accepts from=0 and fractional epoch milliseconds', async () => {
    const res = await get(`/api/v1/fanouts?from=0&to=${TO_MS}.5&leafService=kv&leafOperation=get`);
    expect(res.status).toBe(200);
    expect((res.json as { from: number; to: number }).from).toBe(0);
  });

  it('describes every analysis route in the OpenAPI document', async () => {
    const doc = (await get('/api/v1/openapi.json')).json as {
      paths: Record<string, { get?: { parameters?: { name: string }[] } }>;
    };
    const params = (p: string): string[] =>
      (doc.paths[p]?.get?.parameters ?? []).map((x) => x.name).sort();
    expect(params('/api/v1/fanouts')).toEqual([
      'from',
      'leafOperation',
      'leafService',
      'parentService',
      'seed',
      'thresholdMs',
      'to',
    ]);
    expect(params('/api/v1/stragglers')).toEqual(
      expect.arrayContaining(['from', 'to', 'leafService', 'leafOperation', 'by']),
    );
    expect(params('/api/v1/hosts')).toEqual(
      expect.arrayContaining(['from', 'to', 'leafService', 'leafOperation', 'windowSeconds']),
    );
    expect(params('/api/v1/leaves')).toEqual(
      expect.arrayContaining(['from', 'to', 'leafService', 'leafOperation', 'attrs']),
    );
  });
});
