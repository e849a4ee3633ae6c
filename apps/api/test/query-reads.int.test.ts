import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runAsWork, type WorkClass } from '../src/store/engine/admission';
import { sql } from '../src/store';
import { fanoutSpans, insertSpans, startServer, T0_NS } from './query-support';

/**
 * Issue 25: a trace read or a search sent while an analysis query runs in the embedded engine
 * answered only after it (chDB runs queries with bound parameters one at a time, process-wide).
 * They read on a session of their own now (store/engine/read-session.ts). The analysis query here is
 * real and really running in the engine: it reads from a local HTTP server that holds its answer
 * until the test lets it go, so the test decides when it ends. Every assertion is on the order
 * of events, never on a duration.
 */

let server: Awaited<ReturnType<typeof startServer>>;
let holder: Server;
let holderUrl = '';
let asked = 0;
let release = (): void => undefined;
let held = new Promise<void>((r) => (release = r));
const REQUESTS = 2_000;
const FROM_MS = Number(T0_NS / 1_000_000n);
const TO_MS = FROM_MS + REQUESTS * 20 + 1000;

beforeAll(async () => {
  // A budget above the guard's 90 s: the held analysis query must not be stopped by it.
  server = await startServer('query-reads', {
    TAILSCOPE_QUERY_TIMEOUT_SECONDS: '150',
    TAILSCOPE_READ_SESSION: '1',
  });
  await insertSpans(server.running.store, fanoutSpans(REQUESTS, 4));
  holder = createServer((_req, res) => {
    asked++;
    void held.then(() => res.end('1\n2\n3\n'));
  });
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
  const address = holder.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  holderUrl = `http://127.0.0.1:${address.port}/held.csv`;
}, 120_000);

afterAll(async () => {
  release();
  await new Promise((r) => holder.close(r));
  await server.stop();
}, 120_000);

const asWork = <T>(workClass: WorkClass, f: () => Promise<T>): Promise<T> =>
  runAsWork(
    { workClass, signal: new AbortController().signal, deadlineMs: Date.now() + 600_000 },
    f,
  );

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1200 && !cond(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!cond()) throw new Error(`never happened: ${what}`);
}

it('answers a trace read and a search while an analysis query is running in the engine', async () => {
  const store = server.running.store;
  const order: string[] = [];
  // An analysis's query with bound parameters, as every analysis query has: running in the
  // engine (it has asked the holder for its rows) until released.
  const analysis = asWork('analysis', () =>
    store.query<{ s: string }>(
      sql`SELECT sum(x) + ${10} AS s FROM url(${holderUrl}, 'CSV', 'x UInt64')`,
    ),
  ).then((rows) => {
    order.push('analysis answered');
    return rows;
  });
  await until(() => asked > 0, 'the analysis query running in the engine');
  order.push('analysis running');
  // Liveness only: were the reads behind the analysis query, they would answer after this.
  const guard = setTimeout(() => {
    order.push('analysis released by the guard');
    release();
  }, 90_000);
  const traceId = (1).toString(16).padStart(32, '0');
  const trace = await fetch(`${server.base}/api/v1/traces/${traceId}`);
  expect(trace.status).toBe(200);
  expect(((await trace.json()) as { spans: unknown[] }).spans.length).toBe(5);
  order.push('trace read answered');
  const search = await fetch(`${server.base}/api/v1/traces?from=${FROM_MS}&to=${TO_MS}&limit=5`);
  expect(search.status).toBe(200);
  expect(((await search.json()) as { traces: unknown[] }).traces).toHaveLength(5);
  order.push('search answered');
  release();
  clearTimeout(guard);
  expect(await analysis).toEqual([{ s: 16 }]);
  expect(order).toEqual([
    'analysis running',
    'trace read answered',
    'search answered',
    'analysis answered',
  ]);
  // Reset for any later test.
  held = new Promise<void>((r) => (release = r));
}, 180_000);

it('binds every kind of value the same on the read session as on the first', async () => {
  const store = server.running.store;
  const text = "quote ' backslash \\ tab \t newline \n cr \r nul \0 é";
  const q = sql`SELECT ${text} AS t, ${['a', "b'c", 'd\\e', 'f\tg']} AS a, ${-42} AS i,
    ${1.25} AS f, ${12345678901234567890n.toString()} AS big, ${true} AS b`;
  const read = await asWork('interactive', () => store.query(q));
  const first = await asWork('analysis', () => store.query(q));
  expect(read).toEqual(first);
  expect(read).toEqual([
    {
      t: text,
      a: ['a', "b'c", 'd\\e', 'f\tg'],
      i: -42,
      f: 1.25,
      big: '12345678901234567890',
      b: true,
    },
  ]);
}, 60_000);
