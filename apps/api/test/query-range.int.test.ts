import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../src/store';
import { fanoutSpans, insertSpans, startServer, T0_NS } from './query-support';

/**
 * The query-side reproductions of issue 15, against the real server and engine: each once
 * took the process down or answered 500; now each is a 2xx or a 4xx naming the parameter,
 * within a liveness bound, and the server serves a normal request afterwards.
 */

let server: Awaited<ReturnType<typeof startServer>>;
const FROM_MS = Number(T0_NS / 1_000_000n);
const REQUESTS = 600; // 20 ms apart: 12 s of fan-outs

beforeAll(async () => {
  server = await startServer('query-range');
  await insertSpans(server.running.store, fanoutSpans(REQUESTS));
});

afterAll(async () => {
  await server.stop();
});

/** Liveness bound, not a timing assertion: a hang ends the request instead of the run. */
const LIVENESS_MS = 10_000;

async function call(
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${server.base}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    signal: AbortSignal.timeout(LIVENESS_MS),
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const json = res.headers.get('content-type')?.startsWith('application/json')
    ? ((await res.json()) as Record<string, unknown>)
    : (await res.arrayBuffer(), {});
  return { status: res.status, json };
}

async function stillServing(): Promise<void> {
  expect((await call('/healthz')).status).toBe(200);
  const res = await call(`/api/v1/fanouts?from=${FROM_MS}&to=${FROM_MS + 20_000}`);
  expect(res.status).toBe(200);
  expect((res.json.fanouts as unknown[]).length).toBe(1);
}

// The widest range taken (1970..2200): 230 years of 10-minute chunks, over 12 million.
const EXTREME = 'from=1970-01-01&to=2200-01-01';
const LEAF = 'leafService=kv&leafOperation=get';

describe('ranges are clamped to the stored data', () => {
  it('GET /api/v1/fanouts over years 1970 to 2200 answers the stored fan-outs', async () => {
    // Once (years 0000-9999): an array of every 10-minute chunk, V8 "invalid size", exit.
    const res = await call(`/api/v1/fanouts?${EXTREME}`);
    expect(res.status).toBe(200);
    const fanouts = res.json.fanouts as { requests: number }[];
    expect(fanouts.map((f) => f.requests)).toEqual([REQUESTS]);
    // The answer echoes the range asked.
    expect(res.json.from).toBe(0);
    await stillServing();
  });

  it.each([
    `/api/v1/stragglers?${EXTREME}&${LEAF}`,
    `/api/v1/hosts?${EXTREME}&${LEAF}`,
    `/api/v1/leaves?${EXTREME}&${LEAF}`,
    `/api/v1/fanouts?from=0&to=7258118400000`,
    `/api/v1/hosts?from=0&to=7258118400000&${LEAF}&windowSeconds=1`,
  ])('%s answers 200', async (path) => {
    const res = await call(path);
    expect(res.status).toBe(200);
  });

  it('an empty range of the store answers empty, not an error', async () => {
    const res = await call('/api/v1/fanouts?from=2100-01-01&to=2199-12-31');
    expect(res.status).toBe(200);
    expect(res.json.fanouts).toEqual([]);
  });

  it('the widest range is taken alike as epoch ms and as ISO', async () => {
    const iso = await call(`/api/v1/fanouts?${EXTREME}`);
    const ms = await call('/api/v1/fanouts?from=0&to=7258118400000');
    expect(ms.status).toBe(200);
    expect(ms.json).toEqual(iso.json);
  });

  it('hosts: windows still too many over the stored data answer 400 naming windowSeconds', async () => {
    const res = await call(`/api/v1/hosts?${EXTREME}&${LEAF}&windowSeconds=0.001`);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatch(/windowSeconds/);
  });
});

describe('POST /api/v1/whatif: per-interval work is bounded', () => {
  const base = { leafService: 'kv', leafOperation: 'get', from: '1970-01-01', to: '2200-01-01' };

  it.each([5e-324, 1e-5])(
    'probation intervalSeconds %d answers 400 naming policy.intervalSeconds',
    async (intervalSeconds) => {
      // 5e-324 once killed the process (V8 "invalid size"); 1e-5 blocked it for minutes.
      const res = await call('/api/v1/whatif', {
        ...base,
        policy: { kind: 'probation', intervalSeconds },
      });
      expect(res.status).toBe(400);
      expect(res.json.error).toMatch(/policy\.intervalSeconds/);
      await stillServing();
    },
  );

  it.each([{ windowSeconds: 1e308 }, { holdSeconds: 1e308 }])(
    'probation %o is not a 500',
    async (params) => {
      const res = await call('/api/v1/whatif', {
        ...base,
        policy: { kind: 'probation', ...params },
      });
      expect(res.status).toBeLessThan(500);
      await stillServing();
    },
  );

  it('a what-if over years 1970 to 2200 replays the stored fan-outs', async () => {
    const res = await call('/api/v1/whatif', { ...base, policy: { kind: 'hedge' } });
    expect(res.status).toBe(200);
    expect(res.json.requests).toBe(REQUESTS);
  });
});

describe('numeric extremes are not 500s', () => {
  it.each([
    `/api/v1/fanouts?from=${FROM_MS}&to=${FROM_MS + 10_000}&thresholdMs=1e308`,
    `/api/v1/fanouts?from=${FROM_MS}&to=${FROM_MS + 10_000}&thresholdMs=9007199254740993`,
    `/api/v1/stragglers?from=${FROM_MS}&to=${FROM_MS + 10_000}&${LEAF}&thresholdMs=1e308`,
    `/api/v1/stragglers?from=${FROM_MS}&to=${FROM_MS + 10_000}&${LEAF}&maxFanouts=Infinity`,
    `/api/v1/leaves?from=${FROM_MS}&to=${FROM_MS + 10_000}&${LEAF}&maxFanouts=Infinity`,
    `/api/v1/fanouts?from=NaN&to=Infinity`,
    `/api/v1/fanouts?from=1e400&to=-1e400`,
  ])('%s', async (path) => {
    const res = await call(path);
    expect(res.status).toBeLessThan(500);
    await stillServing();
  });
});

describe('stored data spanning centuries (times stored before ingest refused them)', () => {
  it('GET /api/v1/fanouts over years 1970 to 2200 still answers', async () => {
    const store = server.running.store;
    // A wrapped (negative) start of 1811 and one of 2201: the stored range is 390 years.
    for (const ns of [-5_000_000_000_000_000_000n, 7_300_000_000_000_000_000n]) {
      await store.command(
        sql`INSERT INTO otel_traces (Timestamp, TraceId, SpanId, ServiceName, SpanName, SpanKind, Duration)
          VALUES (fromUnixTimestamp64Nano(toInt64(${ns.toString()})), ${'ab'.repeat(16)}, ${ns < 0n ? '01'.repeat(8) : '02'.repeat(8)}, 'kv', 'get', 'Server', 5)`,
      );
    }
    const res = await call(`/api/v1/fanouts?${EXTREME}`);
    expect(res.status).toBe(200);
    expect((res.json.fanouts as { requests: number }[]).map((f) => f.requests)).toEqual([REQUESTS]);
    await stillServing();
  });
});
