import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CriticalPathResponse, TraceResponse, TracesResponse } from '@tailscope/contracts';
import { buildStoreApi, type Api } from '../src/server/app';
import { openTempStore, T0_NS } from './analysis-support';

/**
 * Trace search, the per-trace critical path and the aggregated critical path on the real
 * engine. Scenario "dispatch": 300 requests of frontend GET /dispatch, 20 ms apart; each runs
 * a MySQL query then two parallel Redis calls and one async audit call that outlives the root.
 * Every 10th request's query waits for a lock (1,000 ms instead of 100 ms) and fails.
 */

const REQUESTS = 300;
const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');
const FROM_MS = Number(T0_NS / 1_000_000n);
const TO_MS = FROM_MS + REQUESTS * 20 + 60_000;
const range = `from=${FROM_MS}&to=${TO_MS}`;

interface Row {
  trace: number;
  span: number;
  parent: number;
  service: string;
  name: string;
  startMs: number;
  durMs: number;
  error?: boolean;
}

function rows(): Row[] {
  const out: Row[] = [];
  for (let q = 0; q < REQUESTS; q++) {
    const slow = q % 10 === 0;
    const sqlMs = slow ? 1000 + q : 100;
    const t = q * 20;
    const total = sqlMs + 30 + 5;
    out.push({
      trace: q,
      span: 1,
      parent: 0,
      service: 'frontend',
      name: 'GET /dispatch',
      startMs: t,
      durMs: total,
    });
    out.push({
      trace: q,
      span: 2,
      parent: 1,
      service: 'mysql',
      name: 'SQL SELECT',
      startMs: t + 2,
      durMs: sqlMs,
      error: slow,
    });
    out.push({
      trace: q,
      span: 3,
      parent: 1,
      service: 'redis',
      name: 'GetDriver',
      startMs: t + 2 + sqlMs,
      durMs: 30,
    });
    out.push({
      trace: q,
      span: 4,
      parent: 1,
      service: 'redis',
      name: 'GetDriver',
      startMs: t + 2 + sqlMs,
      durMs: 20,
    });
    out.push({
      trace: q,
      span: 5,
      parent: 1,
      service: 'audit',
      name: 'log',
      startMs: t + 1,
      durMs: total + 500,
    });
  }
  return out;
}

function nsText(ms: number): string {
  const ns = T0_NS + BigInt(Math.round(ms * 1e6));
  return `${ns / 1_000_000_000n}.${(ns % 1_000_000_000n).toString().padStart(9, '0')}`;
}

const traceId = (q: number): string => hex(q + 1, 32);

describe('critical path and trace search', () => {
  let api: Api;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const t = await openTempStore('critical-path');
    close = t.close;
    const body = rows()
      .map((r) =>
        JSON.stringify({
          Timestamp: nsText(r.startMs),
          TraceId: traceId(r.trace),
          SpanId: hex(r.trace * 16 + r.span, 16),
          ParentSpanId: r.parent === 0 ? '' : hex(r.trace * 16 + r.parent, 16),
          SpanName: r.name,
          SpanKind: r.parent === 0 ? 'Server' : 'Client',
          ServiceName: r.service,
          ResourceAttributes: { 'service.name': r.service },
          SpanAttributes: {},
          Duration: String(Math.round(r.durMs * 1e6)),
          StatusCode: r.error ? 'Error' : 'Unset',
        }),
      )
      .join('\n');
    await t.store.client.command({ query: `INSERT INTO otel_traces FORMAT JSONEachRow\n${body}` });
    api = await buildStoreApi(t.store);
  });
  afterAll(async () => {
    await api.close();
    await close();
  });

  const get = async <T>(url: string): Promise<T> => {
    const res = await api.inject(url);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<T>();
  };

  it('a trace carries its critical path: the query, then the longer Redis call', async () => {
    const t = await get<TraceResponse>(`/api/v1/traces/${traceId(10)}`);
    const self = Object.fromEntries(t.criticalPath.map((s) => [s.spanId, s.selfMs]));
    const id = (span: number): string => hex(10 * 16 + span, 16);
    expect(self[id(2)]).toBeCloseTo(1010, 6);
    expect(self[id(3)]).toBeCloseTo(30, 6);
    expect(self[id(1)]).toBeCloseTo(5, 6);
    // The shorter parallel call and the async audit call are off the path.
    expect(self[id(4)]).toBeUndefined();
    expect(self[id(5)]).toBeUndefined();
    expect(t.criticalPath.reduce((a, s) => a + s.selfMs, 0)).toBeCloseTo(1045, 6);
  });

  it('searches the slowest traces with their counts', async () => {
    const r = await get<TracesResponse>(
      `/api/v1/traces?${range}&service=frontend&operation=${encodeURIComponent('GET /dispatch')}&order=slowest&limit=5`,
    );
    expect(r.traces).toHaveLength(5);
    expect(r.more).toBe(true);
    expect(r.traces[0]).toMatchObject({
      traceId: traceId(290),
      rootService: 'frontend',
      rootOperation: 'GET /dispatch',
      spanCount: 5,
      errorCount: 1,
    });
    expect(r.traces[0]?.durationMs).toBeCloseTo(1325, 6);
    const d = r.traces.map((t) => t.durationMs);
    expect([...d].sort((a, b) => b - a)).toEqual(d);
  });

  it('filters by duration and error, newest first', async () => {
    // Any span may match (Jaeger semantics): the async audit span lasts 635 ms in every trace,
    // so 1,000 ms is what only the slow traces reach (their query, root and audit).
    const r = await get<TracesResponse>(`/api/v1/traces?${range}&minDurationMs=1000&limit=1000`);
    expect(r.traces).toHaveLength(REQUESTS / 10);
    expect(r.more).toBe(false);
    const starts = r.traces.map((t) => t.startMs);
    expect([...starts].sort((a, b) => b - a)).toEqual(starts);
    const ok = await get<TracesResponse>(
      `/api/v1/traces?${range}&error=false&maxDurationMs=200&limit=1000`,
    );
    expect(ok.traces).toHaveLength(REQUESTS - REQUESTS / 10);
    expect(ok.traces.every((t) => t.errorCount === 0)).toBe(true);
    const errs = await get<TracesResponse>(`/api/v1/traces?${range}&error=true&limit=1000`);
    expect(errs.traces).toHaveLength(REQUESTS / 10);
  });

  it('matches any span of a trace, not only its root (Jaeger semantics)', async () => {
    // The callee deep in the tree finds its traces; the answer still names the root.
    const redis = await get<TracesResponse>(
      `/api/v1/traces?${range}&service=redis&operation=GetDriver&limit=1000`,
    );
    expect(redis.traces).toHaveLength(REQUESTS);
    expect(redis.traces[0]).toMatchObject({ rootService: 'frontend', spanCount: 5 });
    // The first matching span (by start, then span id) is named.
    expect(redis.traces[0]?.matchedSpan).toMatchObject({
      spanId: hex((REQUESTS - 1) * 16 + 3, 16),
      service: 'redis',
      operation: 'GetDriver',
    });
    expect(redis.traces[0]?.matchedSpan?.durationMs).toBeCloseTo(30, 6);
    // Service and duration hold for the same span: only the slow queries are >= 500 ms.
    const slow = await get<TracesResponse>(
      `/api/v1/traces?${range}&service=mysql&minDurationMs=500&limit=1000&order=slowest`,
    );
    expect(slow.traces).toHaveLength(REQUESTS / 10);
    expect(slow.traces[0]?.traceId).toBe(traceId(290));
    expect(slow.traces.every((t) => (t.matchedSpan?.durationMs ?? 0) >= 1000)).toBe(true);
    // No redis span lasts 500 ms, though its traces' roots do.
    const none = await get<TracesResponse>(
      `/api/v1/traces?${range}&service=redis&minDurationMs=500&limit=1000`,
    );
    expect(none.traces).toHaveLength(0);
    // Without span filters there is no matched span.
    const all = await get<TracesResponse>(`/api/v1/traces?${range}&limit=1`);
    expect(all.traces[0]?.matchedSpan).toBeUndefined();
  });

  it('refuses a reversed duration range and an unbounded limit, naming the field', async () => {
    const a = await api.inject(`/api/v1/traces?${range}&minDurationMs=9&maxDurationMs=1`);
    expect(a.statusCode).toBe(400);
    expect(a.body).toContain('minDurationMs');
    const b = await api.inject(`/api/v1/traces?${range}&limit=1001`);
    expect(b.statusCode).toBe(400);
    expect(b.body).toContain('limit');
  });

  it('aggregates: the query holds the tail extra time', async () => {
    const r = await get<CriticalPathResponse>(`/api/v1/criticalpath?${range}&band=p90`);
    expect(r).toMatchObject({
      service: 'frontend',
      operation: 'GET /dispatch',
      requests: REQUESTS,
    });
    expect(r.slow.requests).toBe(30);
    expect(r.trusted).toBe(true);
    expect(r.typical.fromMs).toBeCloseTo(135, 6);
    expect(r.typical.toMs).toBeCloseTo(135, 6);
    const first = r.entries[0];
    expect(first).toMatchObject({ service: 'mysql', operation: 'SQL SELECT' });
    expect(first?.typicalMs).toBeCloseTo(100, 6);
    expect(first?.slowMs).toBeGreaterThan(1000);
    expect(r.entries.find((e) => e.service === 'audit')).toBeUndefined();
    expect(r.exemplars?.slow[0]).toBe(traceId(290));
    expect(r.exemplars?.typical.length).toBeGreaterThan(0);
  });

  it('says when the slow band is too small to trust', async () => {
    const r = await get<CriticalPathResponse>(`/api/v1/criticalpath?${range}&band=p999`);
    expect(r.slow.requests).toBeLessThan(20);
    expect(r.trusted).toBe(false);
    expect(r.warning).toMatch(/slow requests/);
  });
});
