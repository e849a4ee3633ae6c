import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Running } from '../src/server/serve';
import { startServer } from './ingest-support';

/**
 * Issue #25: a refusal sent before the body was read (413 for a body over
 * TAILSCOPE_OTLP_MAX_BYTES) must reach a client that is still sending it. The client here does
 * what Python's http.client does: it sends the whole body, and only then reads. Had the server
 * closed the socket with the body unread, the kernel would answer with a reset, which discards
 * the 413 the client has not read yet; OTLP exporters then retry the reset forever.
 */

const MAX_BYTES = 256 * 1024;
let dir: string;
let running: Running;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tailscope-refusal-'));
  running = await startServer(dir, { otlpMaxBytes: String(MAX_BYTES) });
});

afterAll(async () => {
  await running.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Delivery {
  /** The status line the client read, or the error it got instead. */
  answer: string;
}

/** Sends `head` and `bodyBytes` of body without reading, then reads what came back. */
function sendThenRead(head: string, bodyBytes: number, chunked: boolean): Promise<Delivery> {
  const url = new URL(running.urls.otlpHttp);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    // Not read until the body is out: what the server sent waits in the kernel's buffer.
    socket.pause();
    let received = '';
    let settled = false;
    const settle = (answer: string) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve({ answer });
    };
    socket.on('data', (d: Buffer) => {
      received += d.toString('latin1');
      if (received.includes('\r\n')) settle(received.slice(0, received.indexOf('\r\n')));
    });
    socket.on('error', (err) => {
      settle(received.startsWith('HTTP/') ? (received.split('\r\n')[0] ?? '') : String(err));
    });
    socket.on('end', () => {
      settle(received.split('\r\n')[0] || 'closed without an answer');
    });
    socket.on('connect', () => {
      socket.write(head);
      const chunk = Buffer.alloc(64 * 1024, 0x0a);
      let sent = 0;
      const more = (): void => {
        while (sent < bodyBytes) {
          const n = Math.min(chunk.length, bodyBytes - sent);
          sent += n;
          const frame = chunked
            ? Buffer.concat([
                Buffer.from(`${n.toString(16)}\r\n`),
                chunk.subarray(0, n),
                Buffer.from('\r\n'),
              ])
            : chunk.subarray(0, n);
          if (!socket.write(frame)) {
            socket.once('drain', more);
            return;
          }
        }
        socket.write(chunked ? '0\r\n\r\n' : '', () => {
          socket.resume();
        });
      };
      more();
    });
  });
}

describe('a 413 sent while the client is still sending', () => {
  const declared = (bytes: number) =>
    `POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\nContent-Length: ${bytes}\r\n\r\n`;
  const chunked = `POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\nTransfer-Encoding: chunked\r\n\r\n`;

  it('is received every time when the declared length is over the limit', async () => {
    const bytes = 4 * 1024 * 1024;
    for (let i = 0; i < 20; i++) {
      const { answer } = await sendThenRead(declared(bytes), bytes, false);
      expect([i, answer]).toEqual([i, 'HTTP/1.1 413 Payload Too Large']);
    }
  });

  it('is received every time when an undeclared body grows over the limit', async () => {
    const bytes = 4 * 1024 * 1024;
    for (let i = 0; i < 20; i++) {
      const { answer } = await sendThenRead(chunked, bytes, true);
      expect([i, answer]).toEqual([i, 'HTTP/1.1 413 Payload Too Large']);
    }
  });
});
