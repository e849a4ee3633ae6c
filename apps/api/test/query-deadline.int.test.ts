import { afterAll, beforeAll, expect, it } from 'vitest';
import { admissionGates } from '../src/server/admit';
import { analysisPool } from '../src/whatif-worker/pool';
import { startServer, T0_NS } from './query-support';

/**
 * Waiting counts against the query budget (issue 25): an analysis still queued for a slot when
 * its budget runs out is answered 503 without running (no query, no worker job), while the cheap
 * answers, at their own gate, still answer. The slot is held by the test itself, so what the
 * request waits for does not depend on the machine's speed.
 */

let server: Awaited<ReturnType<typeof startServer>>;
const FROM_MS = Number(T0_NS / 1_000_000n);

beforeAll(async () => {
  server = await startServer('query-deadline', {
    TAILSCOPE_ANALYSIS_THREADS: '1',
    // Long enough for the cheap answer on a busy machine; the queued analysis waits it out.
    TAILSCOPE_QUERY_TIMEOUT_SECONDS: '15',
  });
}, 120_000);

afterAll(async () => {
  await server.stop();
});

it('answers 503 without running an analysis still queued at its deadline', async () => {
  const gate = admissionGates(server.running.store).analysis;
  const pool = analysisPool(server.running.api, server.running.store);
  // Every analysis slot taken, for longer than any request's budget.
  const hold = await gate.enter({
    workClass: 'analysis',
    signal: new AbortController().signal,
    deadlineMs: Date.now() + 600_000,
  });
  try {
    const before = { gate: gate.stats(), pool: pool.stats() };
    const res = await fetch(`${server.base}/api/v1/whatif`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        leafService: 'kv',
        leafOperation: 'get',
        from: FROM_MS,
        to: FROM_MS + 60_000,
        policy: { kind: 'hedge', delayMs: 5 },
      }),
    });
    const body = (await res.json()) as { error: string };
    // Had it run, the empty store would have answered 404.
    expect(res.status).toBe(503);
    expect(body.error).toMatch(/TAILSCOPE_QUERY_TIMEOUT_SECONDS/);
    const after = { gate: gate.stats(), pool: pool.stats() };
    expect(after.gate.expired - before.gate.expired).toBe(1);
    expect(after.gate.admitted).toBe(before.gate.admitted);
    expect(after.pool.started).toBe(before.pool.started);
    // The cheap answers do not wait for the analysis slot.
    const stats = await fetch(`${server.base}/api/v1/stats`);
    expect(stats.status).toBe(200);
    expect(gate.stats().running).toBe(1);
  } finally {
    hold();
  }
  // The slot given back, and nothing else waiting.
  expect(gate.stats()).toMatchObject({ running: 0, queued: 0 });
}, 120_000);
