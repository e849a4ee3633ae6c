import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { admissionGates } from '../src/server/admit';
import { analysisPool } from '../src/whatif-worker/pool';
import { fanoutSpans, insertSpans, startServer, T0_NS } from './query-support';

/**
 * A burst of analyses (issue 25): beyond the analysis slots (TAILSCOPE_ANALYSIS_THREADS) and
 * their queue (TAILSCOPE_ANALYSIS_QUEUE) the answer is 503 with Retry-After at once; clients
 * that leave take their work with them (queued: dropped, running: aborted); the cheap answers
 * have their own gate. The real server on the real engine; every assertion is on the order of
 * events or on the pool's and gates' counters, never on a duration.
 */

let server: Awaited<ReturnType<typeof startServer>>;
const REQUESTS = 25_000; // 20 ms apart: 500 s of fan-outs
const FROM_MS = Number(T0_NS / 1_000_000n);
const TO_MS = FROM_MS + REQUESTS * 20 + 1000;
const QUEUE = 3;

beforeAll(async () => {
  // One slot, and a budget above a replay's cost, so a busy machine answers no 503 by time.
  server = await startServer('query-burst', {
    TAILSCOPE_ANALYSIS_THREADS: '1',
    TAILSCOPE_ANALYSIS_QUEUE: String(QUEUE),
    TAILSCOPE_QUERY_TIMEOUT_SECONDS: '120',
  });
  await insertSpans(server.running.store, fanoutSpans(REQUESTS, 8));
}, 120_000);

// Closing the engine waits for the queries the aborted analyses left running (chDB cannot
// interrupt one; each ends within the budget).
afterAll(async () => {
  await server.stop();
}, 300_000);

const gates = () => admissionGates(server.running.store);
const pool = () => analysisPool(server.running.api, server.running.store);

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1200 && !cond(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!cond()) throw new Error(`never happened: ${what}`);
}

interface Answer {
  i: number;
  status: number | 'aborted';
  retryAfter: string | null;
}

/** A probation replay judged every 1 ms: seconds of worker time, far longer than the test's steps. */
function heavyWhatIf(i: number, signal: AbortSignal, events: Answer[]): Promise<Answer> {
  return fetch(`${server.base}/api/v1/whatif`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    signal,
    body: JSON.stringify({
      leafService: 'kv',
      leafOperation: 'get',
      from: FROM_MS,
      to: TO_MS,
      policy: { kind: 'probation', intervalSeconds: 0.001, windowSeconds: 1 },
    }),
  }).then(
    async (res) => {
      await res.arrayBuffer();
      const a = { i, status: res.status, retryAfter: res.headers.get('retry-after') };
      events.push(a);
      return a;
    },
    () => {
      const a = { i, status: 'aborted' as const, retryAfter: null };
      events.push(a);
      return a;
    },
  );
}

/** Aborts the clients and waits until the gate holds nothing: every slot given back. */
async function leave(clients: AbortController, all: Promise<Answer>[]): Promise<void> {
  clients.abort();
  await Promise.all(all);
  await until(() => gates().analysis.stats().running === 0, 'every analysis slot given back');
}

it('answers a burst beyond the slots and queue 503 with Retry-After while the first still run', async () => {
  const clients = new AbortController();
  const events: Answer[] = [];
  const all = Array.from({ length: 8 }, (_, i) => heavyWhatIf(i, clients.signal, events));
  await until(() => events.length >= 8 - 1 - QUEUE, 'the requests beyond the queue answered');
  const refused = events.filter((e) => e.status === 503);
  expect(refused).toHaveLength(8 - 1 - QUEUE);
  expect(refused.every((e) => Number(e.retryAfter) >= 1)).toBe(true);
  // Answered while the admitted ones are still running or waiting: nothing else has answered.
  expect(events.every((e) => e.status === 503)).toBe(true);
  expect(gates().analysis.stats()).toMatchObject({ running: 1, queued: QUEUE });
  await leave(clients, all);
}, 180_000);

it('stops the work of clients that left: the queued are dropped, the running one aborted', async () => {
  const before = { pool: pool().stats(), gate: gates().analysis.stats() };
  const first = new AbortController();
  const rest = new AbortController();
  const events: Answer[] = [];
  const running = heavyWhatIf(0, first.signal, events);
  await until(() => gates().analysis.stats().running === 1, 'the first admitted');
  const queued = Array.from({ length: QUEUE }, (_, i) => heavyWhatIf(i + 1, rest.signal, events));
  // The first is replaying on the worker; the others wait for its slot.
  await until(() => pool().stats().started > before.pool.started, 'the first replay started');
  await until(() => gates().analysis.stats().queued === QUEUE, 'the others queued');
  // The waiting clients leave first: dropped from the queue, nothing of theirs ran.
  rest.abort();
  await until(() => gates().analysis.stats().queued === 0, 'the queue emptied');
  expect(gates().analysis.stats().dropped - before.gate.dropped).toBe(QUEUE);
  // Then the running one's: its replay is stopped, not finished.
  await leave(first, [running, ...queued]);
  const after = { pool: pool().stats(), gate: gates().analysis.stats() };
  expect(after.gate.admitted - before.gate.admitted).toBe(1);
  expect(after.pool.started - before.pool.started).toBe(1);
  expect(after.pool.aborted - before.pool.aborted).toBe(1);
  expect(after.pool.completed).toBe(before.pool.completed);
  expect(events.map((e) => e.status)).toEqual(Array(1 + QUEUE).fill('aborted'));
}, 180_000);

it('answers /api/v1/stats and a trace search while every analysis slot is taken', async () => {
  const started = pool().stats().started;
  const clients = new AbortController();
  const events: Answer[] = [];
  const all = Array.from({ length: 1 + QUEUE }, (_, i) => heavyWhatIf(i, clients.signal, events));
  await until(() => pool().stats().started > started, 'the first replay started');
  const stats = await fetch(`${server.base}/api/v1/stats`);
  expect(stats.status).toBe(200);
  const search = await fetch(`${server.base}/api/v1/traces?from=${FROM_MS}&to=${TO_MS}&limit=5`);
  expect(search.status).toBe(200);
  // Both answered before any analysis did, with the slot and the queue still full.
  expect(events).toEqual([]);
  expect(gates().analysis.stats()).toMatchObject({ running: 1, queued: QUEUE });
  await leave(clients, all);
}, 180_000);

/** Niceness of each of this process's threads, by thread id (Linux: /proc/self/task/TID/stat). */
function threadNices(): Map<number, number> {
  const nices = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      // Fields after the command name: state is the 3rd field of stat, nice the 19th.
      const fields = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]?.split(' ');
      nices.set(Number(tid), Number(fields?.[16]));
    } catch {
      // the thread ended while being read
    }
  }
  return nices;
}

it.runIf(process.platform === 'linux')(
  'runs the analysis threads below the rest of the process in priority',
  async () => {
    const res = await fetch(`${server.base}/api/v1/whatif`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        leafService: 'kv',
        leafOperation: 'get',
        from: FROM_MS,
        to: FROM_MS + 20_000,
        policy: { kind: 'hedge', delayMs: 5 },
      }),
    });
    expect(res.status).toBe(200);
    // The worker that answered is idle in the pool now, at the nice it gave itself.
    const nices = threadNices();
    expect([...nices.values()].filter((n) => n === 10).length).toBeGreaterThanOrEqual(1);
    // The main thread (its id is the process id) and this test's own thread keep 0.
    expect(nices.get(process.pid)).toBe(0);
    const self = Number(readFileSync('/proc/thread-self/stat', 'utf8').split(' ')[0]);
    expect(nices.get(self)).toBe(0);
  },
  60_000,
);
