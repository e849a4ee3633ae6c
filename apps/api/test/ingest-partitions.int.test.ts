import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonToProtobuf } from '../src/ingest/decode-json';
import type { Running } from '../src/server/serve';
import { sql } from '../src/store';
import { otlpJson } from '../src/testing/otlp-fixtures';
import {
  DAY_NS,
  JSON_TYPE,
  T0,
  countSpans,
  eventually,
  leaveInLog,
  postOtlp,
  startServer,
  stats,
  timedSpan,
} from './ingest-support';

/**
 * Issue #15: spans on more days than the engine takes in one insert got a 200, then the writer
 * retried that batch forever, everything behind it queued, /readyz said ready, and on restart
 * the replay hit the same batch before the listeners opened. Here the engine's limit is 100
 * partitions (its default) so that small requests reach it.
 */

const TUNING = { maxPartitionsPerInsert: 100, maxDelayMs: 300, maxRetryDelayMs: 200 };
let dir: string;
let running: Running;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tailscope-partitions-'));
  running = await startServer(dir, {}, TUNING);
});

afterAll(async () => {
  await running.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `days` spans of `traceId`, one per day from `fromDay`. */
function spreadRequest(traceId: string, fromDay: number, days: number): string {
  return otlpJson(
    Array.from({ length: days }, (_, i) => {
      const start = T0 - BigInt(fromDay + i) * DAY_NS;
      return timedSpan(traceId, i, start, start + 1000n);
    }),
  );
}

async function readyz(): Promise<{ code: number; body: { status: string; reason?: string } }> {
  const res = await fetch(`${running.urls.api}/readyz`);
  return { code: res.status, body: (await res.json()) as { status: string; reason?: string } };
}

describe('a batch the engine refuses', () => {
  it('is split per request when the requests fit on their own', async () => {
    const [a, b] = ['e1'.repeat(16), 'e2'.repeat(16)];
    // Two requests in one batch, 60 days each: 120 partitions in one insert.
    const answers = await Promise.all([
      postOtlp(running, spreadRequest(a, 0, 60), JSON_TYPE),
      postOtlp(running, spreadRequest(b, 60, 60), JSON_TYPE),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    await running.ingest.flush();
    expect(await countSpans(running, a)).toBe(60);
    expect(await countSpans(running, b)).toBe(60);
    expect((await stats(running)).deadLetter.batches).toBe(0);
  });

  it('quarantines a request it still refuses, says so, and goes on with what follows', async () => {
    const [c, d] = ['e3'.repeat(16), 'e4'.repeat(16)];
    expect((await postOtlp(running, spreadRequest(c, 200, 150), JSON_TYPE)).status).toBe(200);
    expect((await postOtlp(running, spreadRequest(d, 0, 3), JSON_TYPE)).status).toBe(200);
    await running.ingest.flush();
    expect(await countSpans(running, c)).toBe(0);
    expect(await countSpans(running, d)).toBe(3);
    const s = await stats(running);
    expect(s.deadLetter).toMatchObject({ batches: 1, spans: 150 });
    expect(s.deadLetter.lastReason).toMatch(/Too many partitions/);
    const quarantine = join(dir, 'ingest', 'dead-letter');
    expect(existsSync(join(quarantine, 'dead-letter.log'))).toBe(true);
    const entry = JSON.parse(
      readFileSync(join(quarantine, 'dead-letter.jsonl'), 'utf8').trim(),
    ) as { spans: number; kept: boolean };
    expect(entry).toMatchObject({ spans: 150, kept: true });
    expect((await readyz()).code).toBe(200);
  });
});

describe('/readyz', () => {
  it('is 503 while inserts keep failing and 200 again once they succeed, nothing lost', async () => {
    const traceId = 'e5'.repeat(16);
    await running.store.command(sql`DETACH TABLE otel_traces`);
    try {
      expect((await postOtlp(running, spreadRequest(traceId, 0, 2), JSON_TYPE)).status).toBe(200);
      await eventually(async () => (await readyz()).code === 503);
      expect((await readyz()).body).toMatchObject({ status: 'stuck' });
    } finally {
      await running.store.command(sql`ATTACH TABLE otel_traces`);
    }
    await eventually(async () => (await readyz()).code === 200);
    await running.ingest.flush();
    expect(await countSpans(running, traceId)).toBe(2);
  });
});

describe('a restart with a refused batch in the write-ahead log', () => {
  it('opens the receivers, stores the rest of the log and quarantines that batch', async () => {
    await running.close();
    // What a crash leaves: acknowledged records the store has not seen, one of them refused.
    const [f, g, h, k] = ['f1'.repeat(16), 'f2'.repeat(16), 'f3'.repeat(16), 'f4'.repeat(16)];
    await leaveInLog(
      join(dir, 'ingest', 'wal'),
      [spreadRequest(f, 0, 5), spreadRequest(g, 300, 150), spreadRequest(h, 0, 7)].map((body) =>
        jsonToProtobuf(Buffer.from(body)),
      ),
    );

    running = await startServer(dir, {}, TUNING);
    // The receivers answer while (or after) the log replays.
    expect((await postOtlp(running, spreadRequest(k, 0, 4), JSON_TYPE)).status).toBe(200);
    await running.ingest.flush();
    expect(await countSpans(running, f)).toBe(5);
    expect(await countSpans(running, g)).toBe(0);
    expect(await countSpans(running, h)).toBe(7);
    expect(await countSpans(running, k)).toBe(4);
    const s = await stats(running);
    expect(s.deadLetter).toMatchObject({ batches: 2, spans: 300 });
    expect(s.replayBacklogSpans).toBe(0);
  });
});
