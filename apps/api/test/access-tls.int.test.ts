import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentials, Metadata } from '@grpc/grpc-js';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import type { Running } from '../src/server/serve';
import { sql } from '../src/store';
import { API_TOKEN, exportSpans, INGEST_TOKEN, selfSignedCert } from './access-support';
import { startServer } from './ingest-support';

/**
 * TAILSCOPE_TLS_CERT / TAILSCOPE_TLS_KEY: the REST API, OTLP/HTTP and OTLP/gRPC all speak TLS
 * with a certificate made by openssl for this test; the real exporters trust it as their CA and
 * send with their ingest token; plain-text clients get nowhere. Self-tracing reaches its own
 * receiver over TLS with the token.
 */

let dir: string;
let running: Running;
let cert: Buffer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tailscope-access-tls-'));
  const made = selfSignedCert(dir);
  cert = made.cert;
  running = await startServer(join(dir, 'data'), {
    host: '127.0.0.1',
    tlsCert: made.certPath,
    tlsKey: made.keyPath,
    apiTokens: API_TOKEN,
    ingestTokens: INGEST_TOKEN,
    selfTrace: 'true',
  });
});
afterAll(async () => {
  await running.close();
  rmSync(dir, { recursive: true, force: true });
});

function getTls(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      `${running.urls.api}${path}`,
      { headers, agent: new Agent({ ca: cert }) },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Spans stored (by default not the self-tracer's, which arrive on their own schedule). */
async function storedSpans(where = sql`ServiceName != 'tailscope'`): Promise<number> {
  await running.ingest.flush();
  const rows = await running.store.query<{ n: string }>(
    sql`SELECT toString(count()) AS n FROM otel_traces WHERE ${where}`,
  );
  return Number(rows[0]?.n ?? 0);
}

describe('TLS on every listener', () => {
  it('names https in the addresses it reports', () => {
    expect(running.urls.api).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(running.urls.otlpHttp).toMatch(/^https:\/\//);
  });

  it('serves the REST API over TLS, with HSTS, behind the token', async () => {
    const open = await getTls('/api/v1/stats');
    expect(open.status).toBe(401);
    const res = await getTls('/api/v1/stats', { Authorization: `Bearer ${API_TOKEN}` });
    expect(res.status).toBe(200);
    expect(res.headers['strict-transport-security']).toMatch(/max-age=86400/);
    // Plain HTTP on the TLS port gets no answer from the API.
    await expect(fetch(running.urls.api.replace('https', 'http') + '/healthz')).rejects.toThrow();
  });

  it('takes OTLP/HTTP over TLS from a real exporter that trusts the certificate', async () => {
    const before = await storedSpans();
    const exporter = new ProtoExporter({
      url: `${running.urls.otlpHttp}/v1/traces`,
      headers: { Authorization: `Bearer ${INGEST_TOKEN}` },
      httpAgentOptions: { ca: cert },
    });
    expect((await exportSpans(exporter, 6, 21)).code).toBe(ExportResultCode.SUCCESS);
    expect(await storedSpans()).toBe(before + 6);
  });

  it('takes OTLP/gRPC over TLS, and refuses a plain-text channel', async () => {
    const before = await storedSpans();
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${INGEST_TOKEN}`);
    const exporter = new GrpcExporter({
      url: `https://${running.urls.otlpGrpc}`,
      credentials: credentials.createSsl(cert),
      metadata,
    });
    expect((await exportSpans(exporter, 7, 22)).code).toBe(ExportResultCode.SUCCESS);
    const plain = new GrpcExporter({
      url: `http://${running.urls.otlpGrpc}`,
      credentials: credentials.createInsecure(),
      metadata,
      timeoutMillis: 3000,
    });
    expect((await exportSpans(plain, 3, 23)).code).toBe(ExportResultCode.FAILED);
    expect(await storedSpans()).toBe(before + 7);
  });

  it('self-traces over TLS with the ingest token: service tailscope shows its own requests', async () => {
    await getTls('/api/v1/stats', { Authorization: `Bearer ${API_TOKEN}` });
    const deadline = Date.now() + 20_000;
    let n = 0;
    // The self-tracer's batch processor sends every second; a liveness bound, not a timing claim.
    while (n === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      n = await storedSpans(sql`ServiceName = 'tailscope' AND SpanName = 'GET /api/v1/stats'`);
    }
    expect(n).toBeGreaterThan(0);
    // The dashboard's Traces page shows that tail: the search lists the API's own requests.
    const found = await getTls('/api/v1/traces?service=tailscope&order=slowest', {
      Authorization: `Bearer ${API_TOKEN}`,
    });
    expect(found.status).toBe(200);
    const traces = (JSON.parse(found.body) as { traces: { rootService: string }[] }).traces;
    expect(traces.length).toBeGreaterThan(0);
    expect(traces.every((t) => t.rootService === 'tailscope')).toBe(true);
  });
});
