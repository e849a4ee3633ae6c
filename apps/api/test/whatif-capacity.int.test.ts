import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SpanRecord } from '@tailscope/analysis';
import { randomFromSeed } from '@tailscope/analysis/testing';
import type { CapacityAnswer, WhatIfResponse } from '@tailscope/contracts';
import { buildStoreApi, type Api } from '../src/server/app';
import type { Store } from '../src/store';
import { insertSpans, openTempStore, T0_NS } from './analysis-support';

/**
 * Issue 29 over HTTP on the real embedded engine: load and machines what-ifs, alone and beside
 * a policy, the fitted model in the answer, saturation, and 400s naming the field.
 */

const REQUESTS = 4000; // 10 ms apart on average: ~40 s
const FROM_MS = Number(T0_NS / 1_000_000n);
const TO_MS = FROM_MS + 120_000;
const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

/**
 * frontend/search calls db/query once; the requests alternate between db-0 and db-1, each a
 * FIFO queue of 2 servers with exponential service of mean 16 ms (utilisation 0.4).
 */
function spans(): SpanRecord[] {
  const r = randomFromSeed('whatif-capacity');
  const out: SpanRecord[] = [];
  const free = [new Float64Array(2), new Float64Array(2)] as const;
  let t = 0;
  for (let q = 0; q < REQUESTS; q++) {
    t += -10 * Math.log(1 - r());
    const h = q % 2;
    const f = free[h % 2 === 0 ? 0 : 1];
    const w = (f[0] ?? 0) <= (f[1] ?? 0) ? 0 : 1;
    const begin = Math.max(t, f[w] ?? 0);
    const end = begin + -16 * Math.log(1 - r());
    f[w] = end;
    const traceId = hex(q + 1, 32);
    const rootId = hex(2 * q + 1, 16);
    const ns = (ms: number): bigint => T0_NS + BigInt(Math.round(ms * 1e6));
    out.push({
      traceId,
      spanId: hex(2 * q + 2, 16),
      parentSpanId: rootId,
      kind: 'Server',
      service: 'db',
      name: 'query',
      startNs: ns(t),
      durationNs: BigInt(Math.round((end - t) * 1e6)),
      resource: { 'service.name': 'db', 'host.name': `db-${h}` },
      attributes: {},
    });
    out.push({
      traceId,
      spanId: rootId,
      parentSpanId: '',
      kind: 'Server',
      service: 'frontend',
      name: 'search',
      startNs: ns(t - 0.5),
      durationNs: BigInt(Math.round((end - t + 1) * 1e6)),
      resource: { 'service.name': 'frontend', 'host.name': 'fe-0' },
      attributes: {},
    });
  }
  return out;
}

describe('POST /api/v1/whatif: load and machines (issue 29)', () => {
  let store: Store;
  let close: () => Promise<void>;
  let api: Api;
  const base = { leafService: 'db', leafOperation: 'query', from: FROM_MS, to: TO_MS };

  beforeAll(async () => {
    ({ store, close } = await openTempStore('whatif-capacity'));
    await insertSpans(store, spans());
    api = await buildStoreApi(store);
  });
  afterAll(async () => {
    await api.close();
    await close();
  });

  const post = async (body: unknown): Promise<{ status: number; json: WhatIfResponse }> => {
    const res = await api.inject({
      method: 'POST',
      url: '/api/v1/whatif',
      payload: body as object,
    });
    return { status: res.statusCode, json: res.json() };
  };
  const db = (c: CapacityAnswer | undefined) => {
    const s = c?.services.find((x) => x.service === 'db');
    if (!s) throw new Error('no db in the capacity answer');
    return s;
  };

  it('predicts 1.5x traffic with the fitted model per service', async () => {
    const res = await post({ ...base, policy: { kind: 'load', factor: 1.5 } });
    expect(res.status).toBe(200);
    const cap = res.json.capacity;
    expect(cap?.changes).toEqual([{ kind: 'load', factor: 1.5 }]);
    const s = db(cap);
    expect(s.model).toBe('mgk');
    expect(s.k).toBe(2);
    expect(s.instances).toBe(2);
    expect(Math.abs(s.utilisation - 0.4)).toBeLessThan(0.1);
    expect(s.utilisationAfter / s.utilisation).toBeCloseTo(1.5, 6);
    expect(s.waitMs).toBeGreaterThan(0);
    expect(s.saturated).toBe(false);
    expect(cap?.saturatesFirst).toBe('db');
    expect(res.json.requests).toBe(REQUESTS);
    expect(res.json.applicable).toBe(true);
    // More traffic, more queueing: the tail grows, and its interval holds the value.
    const p99 = res.json.whatIf.p99;
    expect(p99.value).toBeGreaterThan(1.1 * res.json.baseline.p99);
    expect(p99.low).toBeLessThanOrEqual(p99.value);
    expect(p99.high).toBeGreaterThanOrEqual(p99.value);
    expect(res.json.request?.whatIf.p99.value).toBe(p99.value);
    // Same body, same answer.
    expect((await post({ ...base, policy: { kind: 'load', factor: 1.5 } })).json).toEqual(res.json);
  });

  it('keeps the fit: the next load what-if over the range answers from it, the same', async () => {
    const ask = (factor: number) =>
      api.inject({
        method: 'POST',
        url: '/api/v1/whatif',
        payload: { ...base, seed: 9, policy: { kind: 'load', factor } },
      });
    const cold = await ask(1.5);
    const other = await ask(2);
    const warm = await ask(1.5);
    expect([cold, other, warm].map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(cold.headers['tailscope-replay-cache']).toBe('miss');
    expect(other.headers['tailscope-replay-cache']).toMatch(/^hit; age=/);
    expect(warm.headers['tailscope-replay-cache']).toMatch(/^hit; age=/);
    expect(warm.json()).toEqual(cold.json());
    expect(other.json<WhatIfResponse>().whatIf.p99.value).toBeGreaterThan(
      cold.json<WhatIfResponse>().whatIf.p99.value,
    );
  });

  it("fits the whole-request replay's kept trees of the range: no second read, the same answer", async () => {
    // Ranges ending 1 and 2 ms after the data: the same requests, each its own cache key.
    const at = (to: number, policy: object) =>
      api.inject({
        method: 'POST',
        url: '/api/v1/whatif',
        payload: { ...base, to, seed: 21, policy },
      });
    const replay = await at(TO_MS + 1, { kind: 'hedge', delayPercentile: 95 });
    expect(replay.statusCode).toBe(200);
    const kept = await at(TO_MS + 1, { kind: 'load', factor: 1.5 });
    const read = await at(TO_MS + 2, { kind: 'load', factor: 1.5 });
    expect([kept.statusCode, read.statusCode]).toEqual([200, 200]);
    expect(kept.headers['tailscope-replay-cache']).toMatch(/^hit; age=/);
    expect(read.headers['tailscope-replay-cache']).toBe('miss');
    expect(kept.json()).toEqual(read.json());
  });

  it('says the service saturates at 3x instead of a number', async () => {
    const res = await post({ ...base, policy: { kind: 'load', factor: 3 } });
    expect(res.status).toBe(200);
    expect(res.json.applicable).toBe(false);
    expect(res.json.reason).toMatch(/db saturates/);
    expect(res.json.capacity?.saturated).toEqual(['db']);
    expect(res.json.capacity?.request.whatIf).toBeUndefined();
  });

  it('two more db machines at 2x traffic keep the per-instance load', async () => {
    const res = await post({
      ...base,
      policy: { kind: 'machines', service: 'db', delta: 2 },
      capacity: [{ kind: 'load', factor: 2 }],
    });
    expect(res.status).toBe(200);
    const s = db(res.json.capacity);
    expect(s.instancesAfter).toBe(4);
    expect(s.utilisationAfter).toBeCloseTo(s.utilisation, 9);
  });

  it('combines with a replay policy: hedging at 1.5x traffic', async () => {
    const res = await post({
      ...base,
      policy: { kind: 'hedge', delayMs: 30 },
      capacity: [{ kind: 'load', factor: 1.5 }],
    });
    expect(res.status).toBe(200);
    expect(res.json.capacity?.changes).toEqual([{ kind: 'load', factor: 1.5 }]);
    expect(res.json.extraLoad).toBeGreaterThan(0);
    // Baseline: the requests at 1.5x without hedging, slower than recorded.
    const request = res.json.request;
    expect(request?.baseline.p99).toBeGreaterThan(res.json.capacity?.request.baseline.p99 ?? 0);
    expect(request?.whatIf.p99.value).toBeLessThan(request?.baseline.p99 ?? 0);
  });

  it('machines per service for a root p99 objective at 2x traffic', async () => {
    const today = await post({ ...base, policy: { kind: 'load', factor: 1 } });
    const sloMs = today.json.baseline.p99;
    const res = await post({ ...base, policy: { kind: 'load', factor: 2 }, sloMs });
    expect(res.status).toBe(200);
    const m = res.json.capacity?.machinesForSlo;
    expect(m?.sloMs).toBe(sloMs);
    expect(m?.counts?.db).toBeGreaterThan(2);
    expect(m?.p99Ms).toBeLessThanOrEqual(sloMs);
    // Each service's own p99, before and after.
    const s = db(res.json.capacity);
    expect(s.p99After?.value).toBeGreaterThan(s.p99Ms ?? Infinity);
    const bad = await post({ ...base, policy: { kind: 'load', factor: 2 }, sloMs: 0 });
    expect(bad.status).toBe(400);
    expect((bad.json as unknown as { error: string }).error).toMatch(/sloMs must be > 0/);
  });

  it.each([
    [{ kind: 'load', factor: 0 }, /policy\.factor must be > 0/],
    [{ kind: 'load', factor: 17 }, /policy\.factor must be <= 16/],
    [{ kind: 'load', factor: 2, nope: 1 }, /policy\.nope is not a parameter of load/],
    [{ kind: 'machines', service: 'db', count: 2, delta: 1 }, /count and policy\.delta exclude/],
    [{ kind: 'machines', service: 'db', count: 0 }, /policy\.count must be >= 1/],
    [{ kind: 'machines', service: 'db', delta: -2 }, /db would have 0 instances/],
    [{ kind: 'machines', service: 'nope', count: 1 }, /"nope" answered no call in the range/],
  ])('400 for %j', async (policy, message) => {
    const res = await post({ ...base, policy });
    expect(res.status).toBe(400);
    expect((res.json as unknown as { error: string }).error).toMatch(message);
  });

  it('400 for a replay policy inside capacity, or two load changes', async () => {
    const a = await post({ ...base, policy: { kind: 'hedge' }, capacity: [{ kind: 'hedge' }] });
    expect(a.status).toBe(400);
    expect((a.json as unknown as { error: string }).error).toMatch(
      /^capacity\.0\.kind must be one of load, machines/,
    );
    const b = await post({
      ...base,
      policy: { kind: 'load', factor: 2 },
      capacity: [{ kind: 'load', factor: 1.5 }],
    });
    expect(b.status).toBe(400);
    expect((b.json as unknown as { error: string }).error).toMatch(/at most one load/);
  });
});
