import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { status } from '@grpc/grpc-js';
import { loadSettings } from '../src/config';
import { serve, type Running } from '../src/server/serve';
import { grpcExport as grpcExportTo } from './ingest-support';
import { jsonToProtobuf } from '../src/ingest/decode-json';
import {
  decodeExportResponse,
  decodePair,
  fanoutSpans,
  otlpJson,
  protobufRequest,
  jsonSpan as span,
} from '../src/testing/otlp-fixtures';

/**
 * Every kind of bad OTLP/HTTP input gets its documented answer, and the server keeps serving:
 * 415, 404/405, 400 (with nothing of the request stored), 413 (also for a gzip bomb), partial
 * success for invalid ids, and fuzzed protobuf bodies.
 */

const MAX = 64 * 1024;
let dir: string;
let running: Running;
let url: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tailscope-errors-'));
  running = await serve(
    loadSettings(
      {},
      {
        dataDir: dir,
        port: '0',
        otlpHttpPort: '0',
        otlpGrpcPort: '0',
        otlpMaxBytes: String(MAX),
      },
    ),
  );
  url = `${running.urls.otlpHttp}/v1/traces`;
});

afterAll(async () => {
  await running.close();
  rmSync(dir, { recursive: true, force: true });
});

const PROTO = { 'content-type': 'application/x-protobuf' };
const JSON_TYPE = { 'content-type': 'application/json' };

function post(body: Buffer | string, headers: Record<string, string>) {
  return fetch(url, { method: 'POST', headers, body });
}

async function traceSpans(traceId: string): Promise<number> {
  await running.ingest.flush();
  const res = await fetch(`${running.urls.api}/api/v1/traces/${traceId}`);
  if (res.status === 404) return 0;
  expect(res.status).toBe(200);
  return ((await res.json()) as { spans: unknown[] }).spans.length;
}

describe('OTLP/HTTP refuses bad input clearly', () => {
  it('answers 415 for an unsupported content type or encoding', async () => {
    let res = await post('hello', { 'content-type': 'text/plain' });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { message: string }).message).toMatch(
      /Content-Type "text\/plain"/,
    );
    res = await post('{}', { ...JSON_TYPE, 'content-encoding': 'br' });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { message: string }).message).toMatch(/Content-Encoding "br"/);
  });

  it('answers 404 for other paths and 405 for other methods', async () => {
    // /v1/metrics is served too (issue 27); logs are not.
    const other = await fetch(`${running.urls.otlpHttp}/v1/logs`, {
      method: 'POST',
      headers: JSON_TYPE,
      body: '{}',
    });
    expect(other.status).toBe(404);
    const get = await fetch(url);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('answers 400 with a google.rpc.Status in the request format, and stores nothing of it', async () => {
    const traceId = '400'.padEnd(32, 'a');
    const valid = jsonToProtobuf(Buffer.from(otlpJson([span(traceId, 0)])));
    // A valid span followed by a truncated one: the whole request is refused.
    const broken = Buffer.concat([valid, valid.subarray(0, valid.length - 3)]);
    const res = await post(broken, PROTO);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/x-protobuf');
    const status = decodePair(new Uint8Array(await res.arrayBuffer()));
    expect(status.n).toBe(3);
    expect(status.text).toMatch(/undecodable request/);
    expect(await traceSpans(traceId)).toBe(0);

    const json = await post('{"resourceSpans": [', JSON_TYPE);
    expect(json.status).toBe(400);
    expect(((await json.json()) as { code: number; message: string }).message).toMatch(/not JSON/);
    const gz = await post(Buffer.from('not gzip'), { ...PROTO, 'content-encoding': 'gzip' });
    expect(gz.status).toBe(400);
    expect(decodePair(new Uint8Array(await gz.arrayBuffer())).text).toMatch(/gzip/);
  });

  it('answers 413 for a body over the limit, declared or streamed', async () => {
    const big = protobufRequest(fanoutSpans(1000, 1));
    expect(big.length).toBeGreaterThan(MAX);
    const res = await post(big, PROTO);
    expect(res.status).toBe(413);
    expect(decodePair(new Uint8Array(await res.arrayBuffer())).text).toMatch(/limit of 65536/);
    // Without Content-Length (chunked): refused as soon as the bytes read pass the limit.
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: PROTO }, (r) => {
        r.resume();
        resolve(r.statusCode ?? 0);
      });
      req.on('error', reject);
      for (let i = 0; i < big.length; i += 16 * 1024) req.write(big.subarray(i, i + 16 * 1024));
      req.end();
    });
    expect(status).toBe(413);
  });

  it('answers 413 for a gzip bomb without inflating it whole', async () => {
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(MAX);
    const res = await post(bomb, { ...PROTO, 'content-encoding': 'gzip' });
    expect(res.status).toBe(413);
    expect(decodePair(new Uint8Array(await res.arrayBuffer())).text).toMatch(/decompressed/);
  });

  it('stores the valid spans and reports the invalid ones as partial success (protobuf)', async () => {
    const traceId = 'b1'.repeat(16);
    const body = otlpJson([
      span(traceId, 0),
      { ...span(traceId, 1), traceId: '0'.repeat(32) },
      span(traceId, 2),
      { ...span(traceId, 3), spanId: '00' },
      span(traceId, 4),
    ]);
    const res = await post(jsonToProtobuf(Buffer.from(body)), PROTO);
    expect(res.status).toBe(200);
    const partial = decodeExportResponse(new Uint8Array(await res.arrayBuffer()));
    expect(partial?.n).toBe(2);
    expect(partial?.text).toMatch(/2 span\(s\) rejected: invalid trace id/);
    expect(await traceSpans(traceId)).toBe(3);
  });

  it('reports partial success in JSON for a JSON request, and refuses all-invalid requests whole', async () => {
    const traceId = 'b2'.repeat(16);
    const res = await post(
      otlpJson([span(traceId, 0), { ...span(traceId, 1), spanId: '' }]),
      JSON_TYPE,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({
      partialSuccess: {
        rejectedSpans: '1',
        errorMessage: '1 span(s) rejected: invalid span id (must be 8 bytes, not all zero)',
      },
    });
    const none = await post(otlpJson([{ ...span(traceId, 5), traceId: 'xyz' }]), JSON_TYPE);
    expect(
      ((await none.json()) as { partialSuccess: { rejectedSpans: string } }).partialSuccess
        .rejectedSpans,
    ).toBe('1');
    expect(await traceSpans(traceId)).toBe(1);
  });

  it('answers an empty request with an empty success', async () => {
    const res = await post(Buffer.alloc(0), PROTO);
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBe(0);
    const json = await post('{}', JSON_TYPE);
    expect(await json.json()).toEqual({});
  });

  it('survives fuzzed protobuf bodies and still stores a valid request afterwards', async () => {
    const valid = protobufRequest(fanoutSpans(30, 77));
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 4096 }).map((b) => Buffer.from(b)),
          fc
            .array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), {
              minLength: 1,
              maxLength: 12,
            })
            .map((edits) => {
              const copy = Buffer.from(valid);
              for (const [at, v] of edits) copy[at % copy.length] = v;
              return copy;
            }),
          fc.nat({ max: valid.length }).map((n) => valid.subarray(0, n)),
        ),
        async (body) => {
          const res = await post(body, PROTO);
          seen.add(res.status);
          expect([200, 400]).toContain(res.status);
          await res.arrayBuffer();
        },
      ),
      { numRuns: 120, seed: 2024 },
    );
    expect(seen.has(400)).toBe(true);
    const traceId = 'c3'.repeat(16);
    const ok = await post(jsonToProtobuf(Buffer.from(otlpJson([span(traceId, 0)]))), PROTO);
    expect(ok.status).toBe(200);
    expect(await traceSpans(traceId)).toBe(1);
  });
});

function grpcExport(
  body: Buffer,
  compress = false,
): Promise<{ code: number; details: string; res?: Buffer }> {
  return grpcExportTo(running.urls.otlpGrpc, body, compress);
}

describe('OTLP/gRPC refuses bad input clearly', () => {
  it('accepts a valid request and reports partial success', async () => {
    const traceId = 'd4'.repeat(16);
    const body = jsonToProtobuf(
      Buffer.from(otlpJson([span(traceId, 0), { ...span(traceId, 1), spanId: '0'.repeat(16) }])),
    );
    const r = await grpcExport(body);
    expect(r.code).toBe(0);
    expect(decodeExportResponse(r.res ?? Buffer.alloc(0))).toEqual({
      n: 1,
      text: '1 span(s) rejected: invalid span id (must be 8 bytes, not all zero)',
    });
    expect(await traceSpans(traceId)).toBe(1);
  });

  it('answers INVALID_ARGUMENT for an undecodable message and RESOURCE_EXHAUSTED past the limit', async () => {
    const bad = await grpcExport(Buffer.from([0x0a, 0x7f, 0x01]));
    expect(bad.code).toBe(status.INVALID_ARGUMENT);
    expect(bad.details).toMatch(/undecodable request/);
    const big = await grpcExport(protobufRequest(fanoutSpans(1000, 2)));
    expect(big.code).toBe(status.RESOURCE_EXHAUSTED);
    const bomb = await grpcExport(Buffer.alloc(20 * 1024 * 1024), true);
    expect(bomb.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(bomb.details).toMatch(/decompresses/);
    // And it still serves.
    expect((await grpcExport(protobufRequest(fanoutSpans(5, 3)))).code).toBe(0);
  });
});
