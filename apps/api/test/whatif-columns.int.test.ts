import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  requestTreesFromColumns,
  requestTreesFromSpans,
  simulateRequestWhatIf,
} from '@tailscope/analysis';
import { randomTraceSpans } from '@tailscope/analysis/testing';
import { buildStoreApi, type Api } from '../src/server/app';
import type { Store } from '../src/store';
import { loadRequestColumns } from '../src/store/requests/columns';
import { loadRequestSpans } from '../src/store/requests/trees';
import { insertSpans, openTempStore, T0_NS } from './analysis-support';

/**
 * The columnar whole-request read (store/request-columns.ts) on the real embedded engine: the
 * same trees as the span-object read it replaces, the sample and span limits; then POST
 * /api/v1/whatif on it: the same answer as the simulator on the object read, the cache hit by
 * the next answer, the preview quality, 400s naming the field.
 */

const TRACES = 400;

function must<T>(v: T | null | undefined): T {
  if (v === null || v === undefined) throw new Error('expected a value');
  return v;
} // 1 s apart
const scope = {
  fromNs: T0_NS,
  toNs: T0_NS + BigInt(TRACES) * 1_000_000_000n,
  leafService: 'route',
  leafOperation: 'op1',
};

describe('loadRequestColumns', () => {
  let store: Store;
  let close: () => Promise<void>;
  let api: Api;

  beforeAll(async () => {
    ({ store, close } = await openTempStore('whatif-columns'));
    await insertSpans(store, randomTraceSpans(11, TRACES, { t0Ns: T0_NS, duplicates: false }));
    api = await buildStoreApi(store);
  });
  afterAll(async () => {
    await api.close();
    await close();
  });

  const post = async (
    body: object,
  ): Promise<{ status: number; json: Record<string, unknown>; cache: string }> => {
    const res = await api.inject({ method: 'POST', url: '/api/v1/whatif', payload: body });
    const cache = res.headers['tailscope-replay-cache'];
    return { status: res.statusCode, json: res.json(), cache: String(cache) };
  };
  const edge = { leafService: scope.leafService, leafOperation: scope.leafOperation };
  const body = {
    ...edge,
    from: Number(scope.fromNs / 1_000_000n),
    to: Number(scope.toNs / 1_000_000n),
    policy: { kind: 'hedge', delayPercentile: 90 },
    seed: 3,
  };

  it('answers as the simulator on the object read, then from the cache, full and preview', async () => {
    const objs = await loadRequestSpans(store, scope, { maxTraces: 10_000, maxSpans: 1_000_000 });
    const trees = requestTreesFromSpans(objs.spans);
    const want = (opts: object): unknown =>
      JSON.parse(
        JSON.stringify(
          simulateRequestWhatIf(trees, edge, body.policy as { kind: 'hedge' }, {
            seed: 3,
            ...opts,
          }).request,
        ),
      );
    const cold = await post(body);
    expect(cold.status).toBe(200);
    expect(cold.json.quality).toBe('full');
    expect(cold.json.request).toEqual(want({}));
    expect(cold.cache).toBe('miss');
    // The same body answers the same from the cache.
    const again = await post(body);
    expect(again.cache).toMatch(/^hit; age=/);
    expect(again.json).toEqual(cold.json);
    const warm = await post({ ...body, policy: { kind: 'hedge', delayPercentile: 99 } });
    expect(warm.status).toBe(200);
    expect(warm.cache).toMatch(/^hit; age=/);
    const preview = await post({ ...body, quality: 'preview' });
    expect(preview.status).toBe(200);
    expect(preview.json.quality).toBe('preview');
    expect(preview.cache).toMatch(/^hit; age=/);
    expect(preview.json.request).toEqual(want({ replays: 1, bootstrapSamples: 200 }));
  });

  it('400s naming the field for a bad quality or an oversized name', async () => {
    const bad = await post({ ...body, quality: 'fast' });
    expect(bad.status).toBe(400);
    expect(String(bad.json.error)).toMatch(/quality/);
    const long = await post({ ...body, leafService: 'x'.repeat(100_000), quality: 'preview' });
    expect(long.status).toBe(400);
    expect(String(long.json.error)).toMatch(/leafService/);
  });

  it('reads the same request trees as the span objects', async () => {
    const limits = { maxTraces: 10_000, maxSpans: 1_000_000 };
    const cols = must(await loadRequestColumns(store, scope, limits));
    const objs = await loadRequestSpans(store, scope, limits);
    const got = requestTreesFromColumns(cols.columns);
    const want = requestTreesFromSpans(objs.spans);
    expect(want.requestStartMs.length).toBeGreaterThan(100);
    expect(got).toEqual(want);
    expect(cols.sampled).toBe(false);
    expect(cols.truncated).toBe(false);
  });

  it('reads the same descriptors from every span as from one span of each', async () => {
    const limits = { maxTraces: 10_000, maxSpans: 1_000_000 };
    const fromOne = must(await loadRequestColumns(store, scope, limits));
    const fromEvery = must(
      await loadRequestColumns(store, scope, limits, { everyDescriptor: true }),
    );
    expect(fromOne.columns.descriptors.length).toBeGreaterThan(10);
    expect(fromEvery.columns).toEqual(fromOne.columns);
  });

  it('samples the same requests beyond maxTraces and says so; cuts at maxSpans', async () => {
    const limits = { maxTraces: 50, maxSpans: 1_000_000 };
    const cols = must(await loadRequestColumns(store, scope, limits));
    const objs = await loadRequestSpans(store, scope, limits);
    expect(cols.sampled).toBe(true);
    expect(cols.columns.traceIds).toEqual([...new Set(objs.spans.map((s) => s.traceId))].sort());
    const cut = must(await loadRequestColumns(store, scope, { maxTraces: 10_000, maxSpans: 100 }));
    expect(cut.truncated).toBe(true);
    expect(cut.columns.spanKey.length).toBe(100);
  });

  it('finds nothing for an operation nobody calls', async () => {
    const none = await loadRequestColumns(
      store,
      { ...scope, leafOperation: 'nothing' },
      { maxTraces: 10, maxSpans: 10 },
    );
    expect(none).toBeNull();
  });

  it('documents quality in the OpenAPI document (body and answer)', async () => {
    interface Schema {
      properties: Record<string, { default?: string }>;
    }
    interface Doc {
      paths: Record<
        string,
        Record<
          string,
          {
            requestBody?: { content: Record<string, { schema: Schema }> };
            responses: Record<string, { content: Record<string, { schema: Schema }> }>;
          }
        >
      >;
    }
    const doc = (await api.inject('/api/v1/openapi.json')).json<Doc>();
    const op = doc.paths['/api/v1/whatif']?.post;
    const asked = op?.requestBody?.content['application/json']?.schema.properties.quality;
    // Each literal is documented (as `const` or a one-value `enum`, as the generator writes it).
    expect(JSON.stringify(asked)).toMatch(/"preview".*"full"/);
    expect(asked?.default).toBe('full');
    const answered = op?.responses['200']?.content['application/json']?.schema.properties.quality;
    expect(JSON.stringify(answered)).toMatch(/"preview".*"full"/);
  });
});
