import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildStoreApi, type Api } from '../src/server/app';
import { insertSpans, mixedSpans, openTempStore, T0_NS } from './analysis-support';

/**
 * Issue 15's one-request reproductions against the real server and engine: every out-of-bound
 * input answers 400 naming the field (never a 500, a hang or a crash), and the server keeps
 * serving. The bounds live in the route schemas (@tailscope/contracts).
 */

const FROM_MS = Number(T0_NS / 1_000_000n);
const TO_MS = FROM_MS + 800 * 40;
const range = `from=${FROM_MS}&to=${TO_MS}`;
const op = 'leafService=kv&leafOperation=get';

describe('input bounds', () => {
  let api: Api;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const t = await openTempStore('input-bounds');
    close = t.close;
    await insertSpans(t.store, [
      ...mixedSpans(5, 800),
      // A lone span a day earlier: the stored data, which a replay's size is judged over,
      // then spans a day.
      {
        traceId: 'f'.repeat(32),
        spanId: 'f'.repeat(16),
        parentSpanId: '',
        kind: 'Server',
        service: 'other',
        name: 'op',
        startNs: T0_NS - 86_400_000_000_000n,
        durationNs: 1_000_000n,
        resource: {},
        attributes: {},
      },
    ]);
    api = await buildStoreApi(t.store);
  });
  afterAll(async () => {
    await api.close();
    await close();
  });

  const errorOf = async (
    res: Promise<{ statusCode: number; json: () => unknown }>,
  ): Promise<{ status: number; error: string }> => {
    const r = await res;
    return { status: r.statusCode, error: String((r.json() as { error?: unknown }).error) };
  };

  it.each([
    [`/api/v1/fanouts?${range}&thresholdMs=1e308`, /^thresholdMs must be a number in \[0, /],
    [`/api/v1/fanouts?${range}&thresholdMs=Infinity`, /^thresholdMs must be a number/],
    [`/api/v1/fanouts?${range}&thresholdMs=-Infinity`, /^thresholdMs must be a number/],
    [`/api/v1/stragglers?${range}&${op}&thresholdMs=1e308`, /^thresholdMs must be a number/],
    [`/api/v1/stragglers?${range}&${op}&maxFanouts=Infinity`, /^maxFanouts must be an integer/],
    [`/api/v1/leaves?${range}&${op}&maxFanouts=Infinity`, /^maxFanouts must be an integer/],
    [`/api/v1/leaves?${range}&${op}&maxFanouts=1e308`, /^maxFanouts must be an integer/],
    [`/api/v1/hosts?${range}&${op}&windowSeconds=1e308`, /^windowSeconds must be a number/],
    [`/api/v1/hosts?${range}&${op}&windowSeconds=5e-324`, /^windowSeconds must be a number/],
    [`/api/v1/hosts?${range}&${op}&minCalls=Infinity`, /^minCalls must be an integer/],
    [`/api/v1/fanouts?${range}&seed=4294967296`, /^seed must be an integer/],
    [`/api/v1/fanouts?${range}&leafService=${'x'.repeat(513)}`, /^leafService must NOT have more/],
    [`/api/v1/stragglers?${range}&${op}&by=${'host,'.repeat(500)}`, /^by must NOT have more/],
    [`/api/v1/leaves?${range}&${op}&precision=f16`, /^precision must be one of f64, f32/],
    ['/api/v1/traces/xyz', /^traceId must be 32 hex digits, got "xyz"/],
    // The whole-store GET that hung at 4.4-4.9 GB: both ends out of 1970..2200.
    ['/api/v1/fanouts?from=0000-01-01&to=9999-12-31T23:59:59Z', /^to must be between 1970/],
    ['/api/v1/fanouts?from=0000-01-01', /^from must be between 1970-01-01 and 2200-01-01/],
    ['/api/v1/fanouts?from=-62167219200000', /^from must be between 1970-01-01 and 2200-01-01/],
    ['/api/v1/fanouts?to=2200-01-02', /^to must be between 1970-01-01 and 2200-01-01/],
    [`/api/v1/fanouts?from=0&to=${Date.UTC(2200, 0, 2)}`, /^to must be between 1970-01-01/],
  ])('GET 400 naming the field: %s', async (url, message) => {
    const { status, error } = await errorOf(api.inject({ method: 'GET', url }));
    expect(status).toBe(400);
    expect(error).toMatch(message);
  });

  it.each([
    ['from=1970-01-01T00:00:00Z&to=1970-01-01T00:00:01Z', 'from=0&to=1000'],
    [
      'from=2199-12-31T23:59:59Z&to=2200-01-01T00:00:00Z',
      `from=${Date.UTC(2200, 0, 1) - 1000}&to=${Date.UTC(2200, 0, 1)}`,
    ],
  ])('accepts the ends of 1970..2200 alike as ISO-8601 and epoch ms: %s', async (iso, epoch) => {
    const a = await api.inject(`/api/v1/fanouts?${iso}`);
    const b = await api.inject(`/api/v1/fanouts?${epoch}`);
    expect(a.statusCode).toBe(200);
    expect(b.statusCode).toBe(200);
    expect(a.json()).toEqual(b.json());
  });

  const base = { leafService: 'kv', leafOperation: 'get', from: FROM_MS, to: TO_MS };
  it.each([
    [{ kind: 'probation', intervalSeconds: 5e-324 }, /^policy\.intervalSeconds must be >= 0\.001/],
    [{ kind: 'probation', intervalSeconds: 1e-5 }, /^policy\.intervalSeconds must be >= 0\.001/],
    [{ kind: 'probation', windowSeconds: 1e308 }, /^policy\.windowSeconds must be <= 86400/],
    [{ kind: 'probation', holdSeconds: 1e308 }, /^policy\.holdSeconds must be <= 86400/],
    [{ kind: 'hedge', delayMs: 1e308 }, /^policy\.delayMs must be <=/],
    [{ kind: 'tied', serviceMs: 1e308 }, /^policy\.serviceMs must be <=/],
    [{ kind: 'good-enough', deadlineMs: 1e308 }, /^policy\.deadlineMs must be <=/],
    [{ kind: 'sync-background', mergeGapMs: 1e308 }, /^policy\.mergeGapMs must be <=/],
  ])('POST /api/v1/whatif 400 naming the field: %j', async (policy, message) => {
    const { status, error } = await errorOf(
      api.inject({ method: 'POST', url: '/api/v1/whatif', payload: { ...base, policy } }),
    );
    expect(status).toBe(400);
    expect(error).toMatch(message);
  });

  // 1 ms intervals over the 32 s range and a 2 s warm-up are allowed; over a day of stored data
  // they are not (the replay's cost is bounded before the calls are loaded).
  it('refuses a probation replay with too many evaluation intervals, naming the field', async () => {
    const policy = { kind: 'probation', intervalSeconds: 0.001, windowSeconds: 1 };
    const day = { ...base, from: FROM_MS - 86_400_000, policy };
    const { status, error } = await errorOf(
      api.inject({ method: 'POST', url: '/api/v1/whatif', payload: day }),
    );
    expect(status).toBe(400);
    expect(error).toMatch(/^policy\.intervalSeconds 0\.001 gives \d+ evaluation intervals/);
    // The same interval over the short range is within the bound and answers.
    const short = await api.inject({
      method: 'POST',
      url: '/api/v1/whatif',
      payload: { ...base, policy: { ...policy, holdSeconds: 1 } },
    });
    expect(short.statusCode).toBe(200);
  });

  it('refuses non-finite and out-of-range times in the what-if body', async () => {
    for (const [from, field] of [
      [-1, 'from'],
      [Date.UTC(2200, 0, 2), 'from'],
      ['0000-01-01', 'from'],
    ] as const) {
      const { status, error } = await errorOf(
        api.inject({
          method: 'POST',
          url: '/api/v1/whatif',
          payload: { ...base, from, policy: { kind: 'hedge' } },
        }),
      );
      expect(status, String(from)).toBe(400);
      expect(error, String(from)).toMatch(new RegExp(`^${field}`));
    }
  });

  it('keeps serving after every refusal', async () => {
    const res = await api.inject(`/api/v1/fanouts?${range}`);
    expect(res.statusCode).toBe(200);
    expect(res.json<{ fanouts: unknown[] }>().fanouts.length).toBeGreaterThan(0);
  });
});
