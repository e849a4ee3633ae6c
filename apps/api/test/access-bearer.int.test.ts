import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, credentials, Metadata, status as GrpcStatus } from '@grpc/grpc-js';
import { otlpFixtures } from '../src';
import type { Running } from '../src/server/serve';
import { API_TOKEN, INGEST_TOKEN, rawRequest } from './access-support';
import { PROTO, startServer } from './ingest-support';

/**
 * Issue #25: OTLP/HTTP and OTLP/gRPC judge the same `authorization` values alike (one parser,
 * `bearerToken`), and the session cookie is only taken when Sec-Fetch-Site is on an allow-list
 * (`same-origin`, `none`), whatever its case or padding.
 *
 * A value with leading or trailing spaces is not among the gRPC cases: HTTP/1 strips them as
 * optional whitespace, while HTTP/2 (RFC 9113 section 8.2.1) makes such a field malformed and
 * Node 20's HTTP/2 layer drops it before any JavaScript sees it (Node 20 has no switch for it),
 * so the call arrives without a token and the answer says so.
 */

let dir: string;
let running: Running;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tailscope-access-bearer-'));
  running = await startServer(join(dir, 'data'), {
    host: '127.0.0.1',
    apiTokens: API_TOKEN,
    ingestTokens: INGEST_TOKEN,
  });
});

afterAll(async () => {
  await running.close();
  rmSync(dir, { recursive: true, force: true });
});

const EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';
const body = otlpFixtures.protobufRequest(otlpFixtures.fanoutSpans(2, 7));

function grpcCall(authorization: string): Promise<{ code: number; details: string }> {
  const client = new Client(running.urls.otlpGrpc, credentials.createInsecure());
  const metadata = new Metadata();
  metadata.set('authorization', authorization);
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      EXPORT_PATH,
      (b: Buffer) => b,
      (b: Buffer) => b,
      body,
      metadata,
      (err) => {
        client.close();
        resolve(
          err ? { code: err.code, details: err.details } : { code: GrpcStatus.OK, details: '' },
        );
      },
    );
  });
}

const grpcWith = async (authorization: string) => (await grpcCall(authorization)).code;

async function httpWith(authorization: string): Promise<number> {
  const res = await fetch(`${running.urls.otlpHttp}/v1/traces`, {
    method: 'POST',
    headers: { ...PROTO, authorization },
    body,
  });
  await res.arrayBuffer();
  return res.status;
}

describe('the ingest bearer token over HTTP and gRPC', () => {
  it('is taken by both with any case of the scheme and any spaces before the token', async () => {
    for (const value of [
      `Bearer ${INGEST_TOKEN}`,
      `Bearer   ${INGEST_TOKEN}`,
      `bEaReR  ${INGEST_TOKEN}`,
      `BEARER ${INGEST_TOKEN}`,
    ]) {
      expect([value, await httpWith(value)]).toEqual([value, 200]);
      expect([value, await grpcWith(value)]).toEqual([value, GrpcStatus.OK]);
    }
  });

  it('is refused by both when malformed or wrong', async () => {
    for (const value of [
      `Basic ${INGEST_TOKEN}`,
      `Bearer`,
      `Bearer ${INGEST_TOKEN} extra`,
      ` Bearer ${API_TOKEN} `,
    ]) {
      expect([value, await httpWith(value)]).toEqual([value, 401]);
      expect([value, await grpcWith(value)]).toEqual([value, GrpcStatus.UNAUTHENTICATED]);
    }
  });

  it('says on gRPC that a padded value does not arrive, rather than only "missing"', async () => {
    const padded = await grpcCall(` Bearer ${INGEST_TOKEN} `);
    expect(padded.code).toBe(GrpcStatus.UNAUTHENTICATED);
    expect(padded.details).toMatch(/without spaces before or after it/);
  });
});

describe('the session cookie and Sec-Fetch-Site', () => {
  async function cookie(): Promise<string> {
    const res = await fetch(`${running.urls.api}/api/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: API_TOKEN }),
    });
    expect(res.status).toBe(200);
    return (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  }

  const statsWith = async (pair: string, site?: string) =>
    (
      await rawRequest(`${running.urls.api}/api/v1/stats`, {
        headers: { cookie: pair, ...(site === undefined ? {} : { 'sec-fetch-site': site }) },
      })
    ).status;

  it('opens the API from the dashboard itself, in any case and padding', async () => {
    const pair = await cookie();
    for (const site of [undefined, 'same-origin', 'Same-Origin', ' NONE ', 'none'])
      expect([site, await statsWith(pair, site)]).toEqual([site, 200]);
  });

  it('opens nothing from another site or an unknown value', async () => {
    const pair = await cookie();
    for (const site of [
      'same-site',
      'Same-Site',
      ' CROSS-SITE ',
      'cross-site',
      'same-origin, cross-site',
      '',
      'sameorigin',
    ])
      expect([site, await statsWith(pair, site)]).toEqual([site, 401]);
  });
});
