import { execFileSync } from 'node:child_process';
import { appendFileSync, closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { otlpFixtures } from '../src';
import type { Running } from '../src/server/serve';
import { sql } from '../src/store';
import { metric, parseMetrics } from './access-support';
import { countSpans, eventually, grpcExport, postOtlp, startServer, stats } from './ingest-support';

/**
 * Issue #25: a full disk, for real, on a 64 MiB tmpfs holding the whole data directory (the
 * engine's tables, the write-ahead log, the batch log, the scratch files). While no insert can
 * finish, /readyz says why (503), /metrics has the stuck gauge and the failures by reason, and
 * OTLP answers 503 with Retry-After; once space is back the writer resumes by itself, and every
 * acknowledged span is stored exactly once, none quarantined.
 *
 * Mounting needs root. Not root: skipped, saying why. Root but the mount fails (no
 * CAP_SYS_ADMIN): the test fails, so a CI that could run it never skips it silently.
 */

const root = mkdtempSync(join(tmpdir(), 'tailscope-disk-full-'));
let skip: string | undefined;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', root], { stdio: 'pipe' });
} catch (err) {
  skip = `cannot mount a tmpfs (needs root): ${String(err).split('\n')[0] ?? ''}`;
}
if (skip && process.getuid?.() === 0) throw new Error(`disk-full test cannot run: ${skip}`);

let running: Running;
const filler = join(root, 'filler');
const SPANS = 200;

/** Writes `path` until the disk is full; returns the bytes it holds. */
function fillDisk(path: string): number {
  const fd = openSync(path, 'w');
  let total = 0;
  try {
    for (const size of [1024 * 1024, 4096, 512]) {
      const chunk = Buffer.alloc(size, 1);
      for (;;) {
        try {
          total += writeSync(fd, chunk);
        } catch {
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return total;
}

/**
 * Pads the batch log with empty lines (which its parser skips) until the disk refuses more,
 * so the writer's next `B` line meets the full disk too, not only the engine's parts.
 */
function padBatchLog(path: string): void {
  for (;;) {
    try {
      appendFileSync(path, '\n'.repeat(64));
    } catch {
      break;
    }
  }
  for (;;) {
    try {
      appendFileSync(path, '\n');
    } catch {
      return;
    }
  }
}

const request = (seed: number) =>
  otlpFixtures.protobufRequest(otlpFixtures.fanoutSpans(SPANS, seed));

async function readyz(): Promise<{ status: number; body: { status: string; reason?: string } }> {
  const res = await fetch(`${running.urls.api}/readyz`);
  return { status: res.status, body: (await res.json()) as { status: string; reason?: string } };
}

async function metrics() {
  return parseMetrics(await (await fetch(`${running.urls.api}/metrics`)).text());
}

async function distinctSpans(): Promise<number> {
  const rows = await running.store.query<{ n: string }>(
    sql`SELECT toString(uniqExact(TraceId, SpanId)) AS n FROM otel_traces`,
  );
  return Number(rows[0]?.n ?? 0);
}

describe.skipIf(skip !== undefined)('a full data disk', () => {
  beforeAll(async () => {
    // Batches wait (a long delay, a large minimum) until flush() asks: the test decides when
    // the writer meets the full disk. Retries every 200 ms at most.
    running = await startServer(
      join(root, 'data'),
      {},
      { maxDelayMs: 600_000, minBatchSpans: 1_000_000_000, maxRetryDelayMs: 200 },
    );
  });

  afterAll(async () => {
    try {
      rmSync(filler, { force: true });
      await (running as Running | undefined)?.close();
    } finally {
      // Lazy: the embedded engine may keep files of the data directory open until exit.
      execFileSync('umount', ['-l', root]);
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('stops ingest with 503 and says why, then resumes by itself, nothing lost or doubled', async () => {
    expect((await postOtlp(running, request(1))).status).toBe(200);
    await running.ingest.flush();
    expect(await countSpans(running)).toBe(SPANS);

    // Acknowledged, in the log, waiting in the queue: then the disk fills up.
    for (const seed of [2, 3, 4]) expect((await postOtlp(running, request(seed))).status).toBe(200);
    expect(fillDisk(filler)).toBeGreaterThan(0);
    padBatchLog(join(root, 'data', 'ingest', 'wal', 'batches.log'));
    let flushed = false;
    const flushing = running.ingest.flush().then(() => (flushed = true));

    await eventually(async () => (await readyz()).status === 503);
    const ready = await readyz();
    expect(ready.body.status).toBe('stuck');
    expect(ready.body.reason).toMatch(/^no_space: .*(ENOSPC|space)/i);
    const stuck = await metrics();
    expect(metric(stuck, 'tailscope_ingest_writer_stuck', { reason: 'no_space' })).toBe(1);
    expect(metric(stuck, 'tailscope_ingest_writer_stuck', { reason: 'store_error' })).toBe(0);
    expect(
      metric(stuck, 'tailscope_ingest_writer_failures_total', { reason: 'no_space' }),
    ).toBeGreaterThanOrEqual(2);

    // Not 200 (it could not be stored), not 429 (waiting for room in the queue would not help).
    const refused = await postOtlp(running, request(5));
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const grpc = await grpcExport(running.urls.otlpGrpc, request(6));
    expect(grpc.code).toBe(GrpcStatus.UNAVAILABLE);
    expect(grpc.details).toMatch(/cannot store spans now/);
    expect(flushed).toBe(false);

    rmSync(filler);
    await flushing;
    await eventually(async () => (await readyz()).status === 200);
    expect(await countSpans(running)).toBe(4 * SPANS);
    expect(await distinctSpans()).toBe(4 * SPANS);
    const after = await stats(running);
    expect(after.deadLetter.batches).toBe(0);
    const resumed = await metrics();
    expect(metric(resumed, 'tailscope_ingest_writer_stuck', { reason: 'no_space' })).toBe(0);

    // And it takes new spans again.
    expect((await postOtlp(running, request(7))).status).toBe(200);
    await running.ingest.flush();
    expect(await countSpans(running)).toBe(5 * SPANS);
    expect(await distinctSpans()).toBe(5 * SPANS);
  });
});
