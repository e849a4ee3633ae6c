import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Running } from '../src/server/serve';
import { otlpJson } from '../src/testing/otlp-fixtures';
import { JSON_TYPE, T0, grpcExport, postOtlp, startServer, timedSpan } from './ingest-support';

/**
 * Issue #15: total memory bounded by a cap on bytes in flight (200 concurrent 19 MB requests
 * took the server to 4 GB and got their 429 after their bodies were read), stalled bodies held
 * for 300 s, client aborts logged as errors.
 */

/** A raw HTTP request whose headers declare `length` body bytes and that sends `sent` of them. */
function rawRequest(running: Running, length: number, sent = 0): Promise<Socket> {
  const url = new URL(running.urls.otlpHttp);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(
        `POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\nContent-Length: ${length}\r\n\r\n`,
      );
      if (sent > 0) socket.write(Buffer.alloc(sent, 0x0a));
      resolve(socket);
    });
    socket.on('error', reject);
  });
}

/** The first bytes the server answers on the socket (the status line and headers). */
function firstAnswer(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    socket.once('data', (d: Buffer) => {
      resolve(d.toString('latin1'));
    });
  });
}

describe('bytes in flight', () => {
  let small: Running;
  let smallDir: string;
  beforeAll(async () => {
    smallDir = mkdtempSync(join(tmpdir(), 'tailscope-inflight-'));
    small = await startServer(
      smallDir,
      { otlpMaxInflightBytes: String(1024 * 1024), otlpBodyIdleTimeoutMs: '400' },
      {},
      true,
    );
  });
  afterAll(async () => {
    await small.close();
    rmSync(smallDir, { recursive: true, force: true });
  });

  it('answers 429 with Retry-After before reading the bodies of concurrent large requests', async () => {
    // The first 19 MB request holds the budget (it sends no body); 30 more arrive.
    const first = await rawRequest(small, 19_000_000);
    await new Promise((r) => setTimeout(r, 100));
    const others = await Promise.all(
      Array.from({ length: 30 }, () => rawRequest(small, 19_000_000)),
    );
    const answers = await Promise.all(others.map(firstAnswer));
    for (const a of answers) {
      expect(a).toMatch(/^HTTP\/1\.1 429 /);
      expect(a).toMatch(/\r\nRetry-After: 1\r\n/i);
    }
    // gRPC is refused at once too, while the budget is spent.
    const g = await grpcExport(small.urls.otlpGrpc, Buffer.alloc(0));
    expect(g.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(g.details).toMatch(/TAILSCOPE_OTLP_MAX_INFLIGHT_BYTES/);
    for (const s of others) s.destroy();
    first.destroy();
    // The budget comes back: a normal request goes through.
    await new Promise((r) => setTimeout(r, 100));
    const traceId = 'd1'.repeat(16);
    const ok = await postOtlp(small, otlpJson([timedSpan(traceId, 0, T0, T0 + 5n)]), JSON_TYPE);
    expect(ok.status).toBe(200);
  });

  it('counts a chunked body while it streams and refuses it once over the budget', async () => {
    // 900 kB held by a declared body that never comes, then a chunked body of 64 kB chunks.
    const holder = await rawRequest(small, 900 * 1024);
    await new Promise((r) => setTimeout(r, 100));
    const url = new URL(small.urls.otlpHttp);
    const chunked = connect(Number(url.port), url.hostname);
    await new Promise((r) => chunked.once('connect', r));
    const answer = firstAnswer(chunked);
    chunked.write(
      'POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    let sent = 0;
    const state = { answered: false };
    void answer.then(() => {
      state.answered = true;
    });
    while (!state.answered && sent < 4 * 1024 * 1024) {
      chunked.write(`10000\r\n${'x'.repeat(0x10000)}\r\n`);
      sent += 0x10000;
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(await answer).toMatch(/^HTTP\/1\.1 429 /);
    // Refused after about the budget's remaining 124 kB, not after 4 MB.
    expect(sent).toBeLessThan(1024 * 1024);
    chunked.destroy();
    holder.destroy();
  });

  it('drops a stalled body after the idle timeout (408) instead of holding it', async () => {
    const socket = await rawRequest(small, 1000, 10);
    const answer = await firstAnswer(socket);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    socket.destroy();
  });

  it('does not log a client that goes away mid-body as an error', async () => {
    const spy = vi.spyOn(console, 'error');
    try {
      const socket = await rawRequest(small, 100_000, 1000);
      await new Promise((r) => setTimeout(r, 50));
      socket.destroy();
      await new Promise((r) => setTimeout(r, 200));
      const logged = spy.mock.calls.map((c) => c.map(String).join(' '));
      expect(logged.filter((l) => l.includes('otlp/http'))).toEqual([]);
    } finally {
      spy.mockRestore();
    }
    const traceId = 'd2'.repeat(16);
    const ok = await postOtlp(small, otlpJson([timedSpan(traceId, 0, T0, T0 + 5n)]), JSON_TYPE);
    expect(ok.status).toBe(200);
  });
});
