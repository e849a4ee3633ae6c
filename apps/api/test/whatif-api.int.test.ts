import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulateWhatIf, type SpanRecord } from '@tailscope/analysis';
import { randomFromSeed } from '@tailscope/analysis/testing';
import { buildStoreApi, type Api } from '../src/server/app';
import type { Store } from '../src/store';
import { loadLeafCalls } from '../src/store/fanouts';
import { analysisPool } from '../src/whatif-worker/pool';
import { insertSpans, openTempStore, T0_NS } from './analysis-support';

/**
 * POST /api/v1/whatif over HTTP (Fastify inject) on the real embedded engine: the contract's
 * fields, the same answer as the simulator on loadLeafCalls, determinism, 400s naming the
 * field, 404 for no data, and the OpenAPI document.
 */

const REQUESTS = 2000; // 20 ms apart: 40 s
const FROM_MS = Number(T0_NS / 1_000_000n);
const TO_MS = FROM_MS + REQUESTS * 20;
const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

/** frontend/search fans out to kv/get on kv-0..kv-9; kv-3 is 10x slower from 10 s to 20 s. */
function spans(): SpanRecord[] {
  const r = randomFromSeed('whatif-api');
  const out: SpanRecord[] = [];
  for (let q = 0; q < REQUESTS; q++) {
    const traceId = hex(q + 1, 32);
    const parentId = hex(q * 100 + 1, 16);
    const start = T0_NS + BigInt(q) * 20_000_000n;
    let end = 0;
    for (let h = 0; h < 10; h++) {
      const base = 2 - 3 * Math.log(1 - r());
      const slow = h === 3 && q >= 500 && q < 1000;
      const ms = slow ? 10 * base : base;
      const offsetUs = Math.floor(r() * 200);
      end = Math.max(end, offsetUs / 1000 + ms);
      out.push({
        traceId,
        spanId: hex(q * 100 + 2 + h, 16),
        parentSpanId: parentId,
        kind: 'Server',
        service: 'kv',
        name: 'get',
        startNs: start + BigInt(offsetUs) * 1000n,
        durationNs: BigInt(Math.round(ms * 1e6)),
        resource: { 'service.name': 'kv', 'host.name': `kv-${h}` },
        attributes: {},
      });
    }
    out.push({
      traceId,
      spanId: parentId,
      parentSpanId: '',
      kind: 'Server',
      service: 'frontend',
      name: 'search',
      startNs: start,
      durationNs: BigInt(Math.round((end + 1) * 1e6)),
      resource: { 'service.name': 'frontend', 'host.name': 'fe-0' },
      attributes: {},
    });
  }
  return out;
}

describe('POST /api/v1/whatif', () => {
  let store: Store;
  let close: () => Promise<void>;
  let api: Api;
  const base = { leafService: 'kv', leafOperation: 'get', from: FROM_MS, to: TO_MS };

  beforeAll(async () => {
    ({ store, close } = await openTempStore('whatif-api'));
    await insertSpans(store, spans());
    api = await buildStoreApi(store);
  });
  afterAll(async () => {
    await api.close();
    await close();
  });

  const post = async (
    body: unknown,
  ): Promise<{ status: number; json: Record<string, unknown> }> => {
    const res = await api.inject({
      method: 'POST',
      url: '/api/v1/whatif',
      payload: body as object,
    });
    return { status: res.statusCode, json: res.json() };
  };

  it('answers a hedge with the contract fields, as the simulator does on the stored calls', async () => {
    const res = await post({ ...base, policy: { kind: 'hedge', delayPercentile: 95 }, seed: 7 });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(
      [
        'applicable',
        'baseline',
        'extraLoad',
        'notes',
        'quality',
        'request',
        'requests',
        'sampling',
        'whatIf',
      ].sort(),
    );
    // The replay counts each stored call once, and says so (docs/analysis.md "Sampling").
    expect(res.json.sampling).toEqual({ weighted: false, spansWithoutSamplingInfo: 1 });
    expect(res.json.requests).toBe(REQUESTS);
    const whatIf = res.json.whatIf as Record<string, Record<string, number>>;
    expect(Object.keys(whatIf).sort()).toEqual(['p50', 'p90', 'p99', 'p999']);
    expect(Object.keys(whatIf.p99 ?? {}).sort()).toEqual(['high', 'low', 'value']);
    // Exactly 5% of 20,000 calls exceed their type-7 p95 (continuous latencies).
    expect(res.json.extraLoad).toBeCloseTo(0.05, 3);

    const { calls } = await loadLeafCalls(store, {
      fromNs: BigInt(FROM_MS) * 1_000_000n,
      toNs: BigInt(TO_MS) * 1_000_000n,
      leafService: 'kv',
      leafOperation: 'get',
    });
    const direct = simulateWhatIf(calls, { kind: 'hedge', delayPercentile: 95 }, { seed: 7 });
    expect(res.json.baseline).toEqual(direct.baseline);
    expect(res.json.whatIf).toEqual(direct.whatIf);
    expect(res.json.notes).toEqual(direct.notes);

    // The whole request: the root ends 1 ms after its last kv call, so its percentiles sit
    // about 1 ms above the fan-out's, recorded and replayed.
    const request = res.json.request as {
      baseline: Record<string, number>;
      whatIf: Record<string, { value: number }>;
    };
    expect(res.json.applicable).toBe(true);
    expect(request.baseline.p50).toBeCloseTo((res.json.baseline as { p50: number }).p50 + 1, 0);
    expect(request.whatIf.p99?.value).toBeLessThan(request.baseline.p99 ?? 0);

    const again = await post({ ...base, policy: { kind: 'hedge', delayPercentile: 95 }, seed: 7 });
    expect(again.json).toEqual(res.json);
  });

  it('puts the slowed host on probation with the defaults alone', async () => {
    const res = await post({ ...base, policy: { kind: 'probation' }, seed: 1 });
    expect(res.status).toBe(200);
    const probation = res.json.probation as {
      hosts: { host: string; seconds: number }[];
      capacityRemoved: number;
    };
    expect(probation.hosts.map((h) => h.host)).toEqual(['kv-3']);
    expect(probation.hosts[0]?.seconds).toBeGreaterThan(5);
    expect(probation.capacityRemoved).toBeGreaterThan(0);
  });

  it('replays the window before `from` for probation, counting only the range', async () => {
    // From 15 s: kv-3 has been slow since 10 s. The 15 s of warm-up (window 10 s + hold 5 s)
    // hand over its probation; only the 1,250 fan-outs from 15 s on are counted.
    const res = await post({
      ...base,
      from: FROM_MS + 15_000,
      policy: { kind: 'probation', holdSeconds: 5 },
    });
    expect(res.status).toBe(200);
    expect(res.json.requests).toBe(1250);
    const probation = res.json.probation as { hosts: { host: string; seconds: number }[] };
    expect(probation.hosts.map((h) => h.host)).toEqual(['kv-3']);
  });

  it('reports completeness for good-enough, and accepts ISO times', async () => {
    const res = await post({
      ...base,
      from: new Date(FROM_MS).toISOString(),
      to: String(TO_MS),
      policy: { kind: 'good-enough', fraction: 0.9 },
    });
    expect(res.status).toBe(200);
    expect(res.json.completeness).toEqual({
      callsAnswered: 0.9,
      requestsComplete: 0,
      lost: expect.closeTo(0.1, 9) as number,
    });
  });

  it('rejects bad input with 400 naming the field', async () => {
    const cases: [unknown, RegExp][] = [
      [{ ...base, policy: { kind: 'retry' } }, /policy\.kind/],
      [{ ...base, policy: {} }, /policy\.kind/],
      [{ ...base }, /policy is required/],
      [{ ...base, policy: { kind: 'hedge', delayPercentile: 150 } }, /policy\.delayPercentile/],
      [{ ...base, policy: { kind: 'hedge', delayMs: 'soon' } }, /policy\.delayMs/],
      [
        { ...base, policy: { kind: 'hedge', delay: 5 } },
        /policy\.delay is not a parameter of hedge/,
      ],
      [
        { ...base, policy: { kind: 'hedge', delayMs: 5, maxExtraLoad: 0.1 } },
        /policy\.delayMs and policy\.maxExtraLoad/,
      ],
      [{ ...base, policy: { kind: 'probation', intervalSeconds: 60 } }, /policy\.intervalSeconds/],
      [{ ...base, policy: { kind: 'canary', canaries: 3 } }, /policy\.canaries/],
      [{ ...base, policy: { kind: 'tied', cancelMs: -1 } }, /policy\.cancelMs/],
      [{ ...base, leafService: '', policy: { kind: 'hedge' } }, /leafService/],
      [{ ...base, from: 'yesterday', policy: { kind: 'hedge' } }, /from must be/],
      [{ ...base, from: TO_MS, to: FROM_MS, policy: { kind: 'hedge' } }, /must be before/],
      [{ ...base, seed: -1, policy: { kind: 'hedge' } }, /seed/],
      [{ ...base, extra: 1, policy: { kind: 'hedge' } }, /extra/],
      [{ ...base, policy: { kind: 'pool', workers: 'lots' } }, /policy\.workers/],
      [{ ...base, policy: { kind: 'pool', workers: 0 } }, /policy\.workers/],
      [{ ...base, policy: { kind: 'avoid-hosts', hosts: 'kv-3' } }, /policy\.hosts/],
      [{ ...base, parentService: '', policy: { kind: 'hedge' } }, /parentService/],
    ];
    for (const [body, message] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(String(res.json.error), JSON.stringify(body)).toMatch(message);
    }
  });

  it('replays whole requests: pool and one caller; avoid-hosts reports its costs', async () => {
    // kv/get calls are parallel: a pool of 2 workers makes each request wait for 5 rounds.
    const pool = await post({
      ...base,
      parentService: 'frontend',
      parentOperation: 'search',
      policy: { kind: 'pool', workers: 2 },
    });
    expect(pool.status).toBe(200);
    const req = pool.json.request as {
      baseline: { p50: number };
      whatIf: { p50: { value: number } };
      model?: string;
      modelReason?: string;
    };
    expect(pool.json.requests).toBe(REQUESTS);
    expect(pool.json.applicable).toBe(true);
    expect(req.whatIf.p50.value).toBeGreaterThan(2 * req.baseline.p50);
    // The load model reaches the answer: the recorded requests are an open load.
    expect(req.model).toBe('open');
    expect(req.modelReason).toMatch(/closed loop|serialized/);
    const avoid = await post({ ...base, policy: { kind: 'avoid-hosts', hosts: ['kv-3'] } });
    expect(avoid.status).toBe(200);
    expect(avoid.json.avoidHosts).toMatchObject({ hosts: ['kv-3'], capacityRemoved: 0.1 });
    const other = await post({
      ...base,
      parentService: 'nobody',
      policy: { kind: 'hedge' },
    });
    // No request has this caller: a 404 that says so, not the answer for every caller.
    expect(other.status).toBe(404);
    expect(String(other.json.error)).toMatch(/nobody/);
  });

  it('answers one caller from the whole requests alone, without the fan-out replay', async () => {
    const jobs = async (
      body: object,
    ): Promise<{ started: number; json: Record<string, unknown> }> => {
      const before = analysisPool(api, store).stats().started;
      const res = await post({ ...base, policy: { kind: 'hedge' }, seed: 3, ...body });
      expect(res.status).toBe(200);
      return { started: analysisPool(api, store).stats().started - before, json: res.json };
    };
    // Twice first, so the whole-request columns are read and kept by both answers alike.
    await jobs({});
    const every = await jobs({});
    const one = await jobs({ parentService: 'frontend', parentOperation: 'search' });
    // The edge over every caller replays its fan-outs too (one more job); the edge of one
    // caller is answered by the whole-request replay, which both ran.
    expect(every.started - one.started).toBe(1);
    // frontend/search is kv/get's only caller: the same requests, the same request-level answer.
    expect(one.json.request).toEqual(every.json.request);
    expect(one.json.requests).toBe(REQUESTS);
  });

  it('404s when the operation has no fan-outs in the range', async () => {
    const res = await post({ ...base, leafOperation: 'put', policy: { kind: 'hedge' } });
    expect(res.status).toBe(404);
    expect(String(res.json.error)).toMatch(/no fan-outs of kv\/put/);
  });

  it('is in the OpenAPI document with one body schema per policy kind', async () => {
    interface Doc {
      paths: Record<
        string,
        Record<
          string,
          {
            requestBody?: {
              content: Record<
                string,
                { schema: { properties: { policy: { anyOf: { title: string }[] } } } }
              >;
            };
          }
        >
      >;
    }
    const doc = (await api.inject('/api/v1/openapi.json')).json<Doc>();
    const op = doc.paths['/api/v1/whatif']?.post;
    const kinds = op?.requestBody?.content['application/json']?.schema.properties.policy.anyOf.map(
      (s) => s.title,
    );
    expect(kinds).toEqual([
      'hedge',
      'tied',
      'probation',
      'good-enough',
      'canary',
      'sync-background',
      'pool',
      'avoid-hosts',
      'load',
      'machines',
    ]);
  });
});
