import { request } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadSettings } from '../src/config';
import { buildApi, type Api } from '../src/server/app';
import type { Store } from '../src/store';
import { fanoutSpans, insertSpans, T0_NS } from './query-support';
import { openTempStore } from './analysis-support';

/**
 * A client that goes away is not an error of ours: its analysis is cancelled and the log says
 * so at info level; nothing is logged at error level (issue 15: client aborts were logged as
 * errors). A real listener with the request log captured, on the real engine.
 */

const REQUESTS = 25_000; // 20 ms apart: 500 s of fan-outs
const FROM_MS = Number(T0_NS / 1_000_000n);
const TO_MS = FROM_MS + REQUESTS * 20 + 1000;
let store: Store;
let closeStore: () => Promise<void>;
let api: Api;
let base: string;
const lines: { level: number; msg?: string }[] = [];

beforeAll(async () => {
  ({ store, close: closeStore } = await openTempStore('query-abort'));
  await insertSpans(store, fanoutSpans(REQUESTS, 8));
  api = await buildApi(
    { store, settings: loadSettings({}), ready: () => true, ingestRate: () => 0 },
    {
      logger: {
        level: 'info',
        stream: { write: (line: string) => lines.push(JSON.parse(line) as (typeof lines)[0]) },
      },
    },
  );
  base = await api.listen({ host: '127.0.0.1', port: 0 });
}, 120_000);

afterAll(async () => {
  await api.close();
  await closeStore();
});

async function until(cond: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
}

it('a what-if whose client went away is cancelled and logged at info, not as an error', async () => {
  const ac = new AbortController();
  const pending = fetch(`${base}/api/v1/whatif`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    signal: ac.signal,
    body: JSON.stringify({
      leafService: 'kv',
      leafOperation: 'get',
      from: FROM_MS,
      to: TO_MS,
      // Seconds of replay on the worker: the client leaves long before the answer.
      policy: { kind: 'probation', intervalSeconds: 0.001, windowSeconds: 1 },
    }),
  }).catch((e: unknown) => e);
  await until(() => lines.some((l) => l.msg === 'incoming request'));
  await new Promise((r) => setTimeout(r, 500));
  ac.abort();
  expect(await pending).toBeInstanceOf(Error);
  await until(() => lines.some((l) => l.msg === 'client closed the request before its answer'));
  expect(lines.some((l) => l.msg === 'client closed the request before its answer')).toBe(true);
  expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  const ok = await fetch(`${base}/api/v1/fanouts?from=${FROM_MS}&to=${TO_MS}`);
  expect(ok.status).toBe(200);
});

it('a request body cut off mid-way is not logged as an error', async () => {
  const before = lines.length;
  await new Promise<void>((resolve) => {
    const req = request(`${base}/api/v1/whatif`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '1000' },
    });
    req.on('error', () => {
      resolve();
    });
    req.write('{"leafService": "kv", ');
    setTimeout(() => {
      req.destroy();
      resolve();
    }, 200);
  });
  await until(() => lines.slice(before).some((l) => l.msg === 'request completed'), 3000);
  expect(lines.slice(before).filter((l) => l.level >= 50)).toEqual([]);
  expect((await fetch(`${base}/healthz`)).status).toBe(200);
});
