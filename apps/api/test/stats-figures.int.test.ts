import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Running } from '../src/server/serve';
import { runAsWork } from '../src/store/engine/admission';
import { noteStoreWrite } from '../src/store/writes/notes';
import { fanoutSpans, protobufRequest } from '../src/testing/otlp-fixtures';
import { eventually, postOtlp, startServer } from './ingest-support';

/**
 * Issue 25: /api/v1/stats took 45 s in a burst of analyses, waiting its turn at the engine
 * behind the running analysis query. It now answers from kept figures (cache/store-figures.ts),
 * refreshed after ingest commits; the figures stay exact once refreshed.
 */

type ReadableSpan = ReturnType<typeof fanoutSpans>[number];

interface Stats {
  spans: number;
  traces: number;
  services: number;
  storeFiguresAgeMs?: number;
}

let dir: string;
let running: Running;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tailscope-stats-figures-'));
  running = await startServer(dir, {}, { maxDelayMs: 50 });
});

afterAll(async () => {
  await running.close();
  rmSync(dir, { recursive: true, force: true });
});

async function stats(): Promise<Stats> {
  const res = await fetch(`${running.urls.api}/api/v1/stats`);
  expect(res.status).toBe(200);
  return (await res.json()) as Stats;
}

const traceCount = (spans: ReadableSpan[]): number =>
  new Set(spans.map((s) => s.spanContext().traceId)).size;

/** Ingests `spans` over OTLP/HTTP and waits until the writer stored them. */
async function ingest(spans: ReadableSpan[]): Promise<void> {
  expect((await postOtlp(running, protobufRequest(spans))).status).toBe(200);
  await running.ingest.flush();
}

describe('/api/v1/stats from kept figures', () => {
  const first = fanoutSpans(1200, 41);
  const second = fanoutSpans(700, 42);

  it('counts exactly what was ingested once the figures are refreshed', async () => {
    const empty = await stats();
    expect(empty).toMatchObject({ spans: 0, traces: 0, services: 0 });
    expect(empty.storeFiguresAgeMs).toBeGreaterThanOrEqual(0);
    await ingest(first);
    // The commit refreshes the figures (at most every 10 s), and a reader finding them stale
    // refreshes them too: polled, not timed.
    await eventually(async () => (await stats()).spans === first.length);
    expect(await stats()).toMatchObject({
      spans: first.length,
      traces: traceCount(first),
      services: 2,
    });
    await ingest(second);
    await eventually(async () => (await stats()).spans === first.length + second.length);
    expect((await stats()).traces).toBe(traceCount(first) + traceCount(second));
  }, 120_000);

  it('answers while an analysis query holds the engine, then catches up', async () => {
    const before = await stats();
    const order: string[] = [];
    let release = (): void => undefined;
    const held = new Promise<void>((r) => (release = r));
    const work = {
      workClass: 'analysis' as const,
      signal: new AbortController().signal,
      deadlineMs: Date.now() + 600_000,
    };
    // An analysis's store call that keeps its engine turn until released: every other engine
    // query waits for it, as they wait for a running analysis query.
    const holding = runAsWork(work, () =>
      running.store.call(async () => {
        order.push('engine held');
        await held;
      }),
    );
    await eventually(() => Promise.resolve(order.includes('engine held')));
    // Liveness only: if /stats waited for the engine it would answer after this.
    const guard = setTimeout(() => {
      order.push('engine released by the guard');
      release();
    }, 60_000);
    // Spans committed meanwhile (the writer's insert waits for the engine too) make the kept
    // figures stale: the reader starts a refresh, waits for it at most TAILSCOPE_STATS_WAIT_MS,
    // and answers the last figures.
    const third = fanoutSpans(300, 43);
    expect((await postOtlp(running, protobufRequest(third))).status).toBe(200);
    noteStoreWrite(running.store);
    const during = await stats();
    order.push('stats answered');
    release();
    clearTimeout(guard);
    await holding;
    expect(order).toEqual(['engine held', 'stats answered']);
    expect(during.spans).toBe(before.spans);
    await running.ingest.flush();
    await eventually(async () => (await stats()).spans === before.spans + third.length);
    expect((await stats()).traces).toBe(before.traces + traceCount(third));
  }, 180_000);
});
