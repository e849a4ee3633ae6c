import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { otlpFixtures } from '../src';
import type { Running } from '../src/server/serve';
import { metric, parseMetrics } from './access-support';
import { countSpans, grpcExport, startServer } from './ingest-support';

/**
 * Issue #25: OTLP/gRPC bodies are held to TAILSCOPE_OTLP_MAX_INFLIGHT_BYTES before they are
 * buffered (40 concurrent 58 MB exports took the server from 0.5 to 2.55 GB while HTTP refused
 * 32 of 40). Calls here send their 5-byte message prefix and a little of the message, then wait:
 * those that fit hold their share; the excess is answered RESOURCE_EXHAUSTED at once, while
 * the others are still sending. No timing: each call is finished only when the test says so.
 */

const SPANS = 4000;
const body = otlpFixtures.protobufRequest(otlpFixtures.fanoutSpans(SPANS, 21));
let dir: string;
let running: Running;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tailscope-grpc-inflight-'));
  // Room for two of these messages in flight, not three.
  const cap = Math.floor(2.5 * body.length);
  running = await startServer(dir, { otlpMaxInflightBytes: String(cap) });
});

afterAll(async () => {
  await running.close();
  rmSync(dir, { recursive: true, force: true });
});

interface OpenCall {
  stream: ClientHttp2Stream;
  /** The call's grpc-status (from a trailers-only answer or the trailers). */
  status: Promise<number>;
  finish(): void;
}

/** A unary Export that sends its prefix and `head` bytes of the message, then waits. */
function openCall(session: ClientHttp2Session, head: number): OpenCall {
  const stream = session.request({
    ':method': 'POST',
    ':path': '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
    'content-type': 'application/grpc',
    te: 'trailers',
  });
  const status = new Promise<number>((resolve) => {
    const read = (h: Record<string, unknown>) => {
      if (h['grpc-status'] !== undefined) resolve(Number(h['grpc-status']));
    };
    stream.on('response', read);
    stream.on('trailers', read);
    stream.on('close', () => {
      resolve(-1);
    });
    stream.on('error', () => undefined);
    stream.resume();
  });
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(body.length, 1);
  stream.write(prefix);
  stream.write(body.subarray(0, head));
  return {
    stream,
    status,
    finish: () => {
      stream.end(body.subarray(head));
    },
  };
}

describe('gRPC bytes in flight', () => {
  it('refuses the calls past the cap with RESOURCE_EXHAUSTED before reading them', async () => {
    const refusals = async () =>
      metric(
        parseMetrics(await (await fetch(`${running.urls.api}/metrics`)).text()),
        'tailscope_otlp_requests_total',
        { protocol: 'grpc', outcome: 'over_inflight_budget' },
      );
    const before = await refusals();
    const session = connect(`http://${running.urls.otlpGrpc}`);
    try {
      const held = [openCall(session, 1000), openCall(session, 1000)];
      const excess = [openCall(session, 1000), openCall(session, 1000), openCall(session, 1000)];
      // The excess is answered while the first two have not sent their messages yet.
      expect(await Promise.all(excess.map((c) => c.status))).toEqual([
        GrpcStatus.RESOURCE_EXHAUSTED,
        GrpcStatus.RESOURCE_EXHAUSTED,
        GrpcStatus.RESOURCE_EXHAUSTED,
      ]);
      expect((await refusals()) - before).toBe(3);
      for (const c of held) c.finish();
      expect(await Promise.all(held.map((c) => c.status))).toEqual([GrpcStatus.OK, GrpcStatus.OK]);
    } finally {
      session.close();
    }
    // The shares are given back: a later export fits again.
    expect((await grpcExport(running.urls.otlpGrpc, body)).code).toBe(GrpcStatus.OK);
    await running.ingest.flush();
    expect(await countSpans(running)).toBe(3 * SPANS);
  });

  it('counts a gzip message at its decompressed size once inflated', async () => {
    const session = connect(`http://${running.urls.otlpGrpc}`);
    try {
      const held = [openCall(session, 1000), openCall(session, 1000)];
      // Small on the wire, so its prefix fits; inflated, it does not.
      const zipped = await grpcExport(running.urls.otlpGrpc, body, true);
      expect(zipped.code).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
      for (const c of held) c.finish();
      expect(await Promise.all(held.map((c) => c.status))).toEqual([GrpcStatus.OK, GrpcStatus.OK]);
    } finally {
      session.close();
    }
    expect((await grpcExport(running.urls.otlpGrpc, body, true)).code).toBe(GrpcStatus.OK);
  });
});
