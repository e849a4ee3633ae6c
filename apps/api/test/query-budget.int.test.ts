import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../src/store';
import { QueryBudgetError } from '../src/store/engine/budget';
import { fanoutSpans, insertSpans, startServer, T0_NS } from './query-support';

/**
 * The query budget on the real engine: chDB honours max_execution_time and max_memory_usage
 * given through @clickhouse/client; a query over budget answers 503 (time) or 413 (memory)
 * naming the setting, never a 500 or a hang, and the server keeps serving. The data is
 * written under the default budget, then a server with a tiny budget opens the same store.
 */

const REQUESTS = 25_000; // 20 ms apart: 500 s of fan-outs
const FROM_MS = Number(T0_NS / 1_000_000n);
const TO_MS = FROM_MS + REQUESTS * 20 + 1000;
const RANGE = `from=${FROM_MS}&to=${TO_MS}`;
let dir: string;

beforeAll(async () => {
  const writer = await startServer('query-budget');
  await insertSpans(writer.running.store, fanoutSpans(REQUESTS, 8));
  dir = writer.dir;
  await writer.close();
}, 120_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function get(base: string, path: string) {
  const res = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, json: (await res.json()) as { error?: string } };
}

describe('time budget', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    server = await startServer('query-budget', { TAILSCOPE_QUERY_TIMEOUT_SECONDS: '1' }, dir);
  });
  afterAll(async () => {
    await server.close();
  });

  it('a query past max_execution_time is a QueryBudgetError (503) naming the setting', async () => {
    const err = await server.running.store
      .query(sql`SELECT sleepEachRow(0.5) FROM numbers(10) SETTINGS max_block_size = 1`)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QueryBudgetError);
    expect((err as QueryBudgetError).statusCode).toBe(503);
    expect((err as QueryBudgetError).message).toMatch(/TAILSCOPE_QUERY_TIMEOUT_SECONDS/);
    // The next query answers its own rows only (chDB handed it the killed query's rows).
    const rows = await server.running.store.query<{ n: string }>(sql`SELECT toString(1) AS n`);
    expect(rows).toEqual([{ n: '1' }]);
  });

  it('an analysis past the time budget answers 503, and the server keeps serving', async () => {
    // Probation judged every 1 ms over 500 s of fan-outs: seconds of replay on the worker.
    const res = await fetch(`${server.base}/api/v1/whatif`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      signal: AbortSignal.timeout(10_000),
      body: JSON.stringify({
        leafService: 'kv',
        leafOperation: 'get',
        from: FROM_MS,
        to: TO_MS,
        policy: { kind: 'probation', intervalSeconds: 0.001, windowSeconds: 1 },
      }),
    });
    const body = (await res.json()) as { error: string };
    expect(res.status).toBe(503);
    expect(body.error).toMatch(/query budget exceeded.*TAILSCOPE_QUERY_TIMEOUT_SECONDS/);
    expect((await get(server.base, '/healthz')).status).toBe(200);
    // A cheap read: live fan-out detection over this store costs about the 1 s budget itself.
    expect((await get(server.base, '/api/v1/stats')).status).toBe(200);
  });
});

describe('memory budget', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    server = await startServer(
      'query-budget',
      { TAILSCOPE_QUERY_MAX_MEMORY_BYTES: String(8 * 1024 * 1024) },
      dir,
    );
  });
  afterAll(async () => {
    await server.close();
  });

  it('a query past max_memory_usage answers 413 naming the setting; the server keeps serving', async () => {
    const err = await server.running.store
      .query(sql`SELECT length(groupArray(number)) FROM numbers(10000000)`)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QueryBudgetError);
    expect((err as QueryBudgetError).statusCode).toBe(413);

    const res = await get(
      server.base,
      `/api/v1/stragglers?${RANGE}&leafService=kv&leafOperation=get`,
    );
    expect(res.status).toBe(413);
    expect(res.json.error).toMatch(/TAILSCOPE_QUERY_MAX_MEMORY_BYTES/);
    expect((await get(server.base, '/healthz')).status).toBe(200);
    const trace = await get(server.base, `/api/v1/traces/${(1).toString(16).padStart(32, '0')}`);
    expect(trace.status).toBe(200);
  });
});
