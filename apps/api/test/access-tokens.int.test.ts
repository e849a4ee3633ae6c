import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metadata, status as GrpcStatus } from '@grpc/grpc-js';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { otlpFixtures } from '../src';
import type { Running } from '../src/server/serve';
import { sql } from '../src/store';
import { httpCaller } from '../src/report/collect';
import { API_TOKEN, exportSpans, INGEST_TOKEN } from './access-support';
import { grpcExport, startServer } from './ingest-support';

/**
 * With TAILSCOPE_API_TOKENS and TAILSCOPE_INGEST_TOKENS set, every listener of a real server
 * (OTLP/HTTP and OTLP/gRPC through the real OTel exporters, the REST API, /metrics and the
 * dashboard's session cookie) refuses a missing or wrong token with a message naming it, and
 * takes the right one. The API tokens come from a file, as a mounted secret would.
 */

let dir: string;
let running: Running;
const WRONG = 'wrong-token-0123456789abcdef';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tailscope-access-tokens-'));
  const tokenFile = join(dir, 'api-tokens');
  writeFileSync(
    tokenFile,
    `# API tokens, one a line\n${API_TOKEN}\nsecond-token-0123456789abcdef\n`,
  );
  running = await startServer(join(dir, 'data'), {
    host: '127.0.0.1',
    apiTokens: tokenFile,
    ingestTokens: INGEST_TOKEN,
  });
});

afterAll(async () => {
  await running.close();
  rmSync(dir, { recursive: true, force: true });
});

async function storedSpans(): Promise<number> {
  await running.ingest.flush();
  const rows = await running.store.query<{ n: string }>(
    sql`SELECT toString(count()) AS n FROM otel_traces`,
  );
  return Number(rows[0]?.n ?? 0);
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe('OTLP/HTTP with an ingest token', () => {
  const exporter = (headers: Record<string, string>) =>
    new ProtoExporter({ url: `${running.urls.otlpHttp}/v1/traces`, headers });

  it('refuses a missing or wrong token (401, naming it) and stores nothing', async () => {
    const before = await storedSpans();
    for (const [headers, message] of [
      [{}, /needs an ingest token .*TAILSCOPE_INGEST_TOKENS/],
      [bearer(WRONG), /not one of TAILSCOPE_INGEST_TOKENS/],
      [bearer(API_TOKEN), /not one of TAILSCOPE_INGEST_TOKENS/],
    ] as const) {
      const res = await fetch(`${running.urls.otlpHttp}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{"resourceSpans":[]}',
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(((await res.json()) as { message: string }).message).toMatch(message);
      const result = await exportSpans(exporter(headers), 3, 1);
      expect(result.code).toBe(ExportResultCode.FAILED);
      expect(String(result.error)).toMatch(/Unauthorized|401/);
    }
    expect(await storedSpans()).toBe(before);
  });

  it('stores what a real exporter sends with the right token', async () => {
    const before = await storedSpans();
    const result = await exportSpans(exporter(bearer(INGEST_TOKEN)), 4, 2);
    expect(result.code).toBe(ExportResultCode.SUCCESS);
    expect(await storedSpans()).toBe(before + 4);
  });
});

describe('tailscope generate with TAILSCOPE_INGEST_TOKEN', () => {
  it('is refused without it and delivers with it', async () => {
    const cli = join(import.meta.dirname, '..', '..', 'cli', 'bin', 'tailscope.js');
    // Spawned, not spawnSync: the server answering it runs in this process.
    const generate = (env: Record<string, string>) =>
      new Promise<{ status: number | null; stderr: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          [
            cli,
            'generate',
            '--scenario',
            'sick-host',
            '--requests',
            '20',
            '--seed',
            '3',
            '--otlp',
            `${running.urls.otlpHttp}/v1/traces`,
          ],
          {
            env: { ...process.env, TAILSCOPE_INGEST_TOKEN: '', ...env },
            stdio: ['ignore', 'ignore', 'pipe'],
          },
        );
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
        child.on('exit', (status) => {
          clearTimeout(timer);
          resolve({ status, stderr });
        });
      });
    const before = await storedSpans();
    const refused = await generate({});
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/401/);
    expect(await storedSpans()).toBe(before);
    const sent = await generate({ TAILSCOPE_INGEST_TOKEN: INGEST_TOKEN });
    expect(sent.status, sent.stderr).toBe(0);
    expect(await storedSpans()).toBeGreaterThan(before);
  });
});

describe('OTLP/gRPC with an ingest token', () => {
  const withToken = (token: string | undefined) => {
    const metadata = new Metadata();
    if (token !== undefined) metadata.set('authorization', `Bearer ${token}`);
    return new GrpcExporter({ url: `http://${running.urls.otlpGrpc}`, metadata });
  };

  it('answers UNAUTHENTICATED without the right token, naming it', async () => {
    const body = otlpFixtures.protobufRequest(otlpFixtures.fanoutSpans(2, 3));
    const missing = await grpcExport(running.urls.otlpGrpc, body);
    expect(missing.code).toBe(GrpcStatus.UNAUTHENTICATED);
    expect(missing.details).toMatch(/TAILSCOPE_INGEST_TOKENS.*"authorization: Bearer <token>"/);
    const before = await storedSpans();
    for (const token of [undefined, WRONG]) {
      const result = await exportSpans(withToken(token), 3, 3);
      expect(result.code).toBe(ExportResultCode.FAILED);
      expect(String(result.error)).toMatch(/TAILSCOPE_INGEST_TOKENS/);
    }
    expect(await storedSpans()).toBe(before);
  });

  it('stores what a real exporter sends with the token in its metadata', async () => {
    const before = await storedSpans();
    const result = await exportSpans(withToken(INGEST_TOKEN), 5, 4);
    expect(result.code).toBe(ExportResultCode.SUCCESS);
    expect(await storedSpans()).toBe(before + 5);
  });
});

describe('REST API with an API token', () => {
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${running.urls.api}${path}`, { headers });

  it('refuses a missing, malformed or wrong token with a 401 that says which', async () => {
    for (const path of ['/api/v1/stats', '/api/v1/openapi.json', '/metrics']) {
      const cases: [Record<string, string>, RegExp][] = [
        [{}, /needs an API token \(TAILSCOPE_API_TOKENS is set\)/],
        [{ Authorization: `Basic ${API_TOKEN}` }, /must be "Bearer <token>"/],
        [bearer(WRONG), /bearer token .* is not one of TAILSCOPE_API_TOKENS/],
        [bearer(INGEST_TOKEN), /not one of TAILSCOPE_API_TOKENS/],
        [{ Cookie: `tailscope_session=${WRONG}` }, /session is no longer valid/],
      ];
      for (const [headers, message] of cases) {
        const res = await get(path, headers);
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(401);
        const body = (await res.json()) as { error: string; statusCode: number };
        expect(body).toMatchObject({ statusCode: 401 });
        expect(body.error).toMatch(message);
      }
    }
  });

  it('answers with the right token, from the file, either line', async () => {
    expect((await get('/api/v1/stats', bearer(API_TOKEN))).status).toBe(200);
    expect((await get('/api/v1/stats', bearer('second-token-0123456789abcdef'))).status).toBe(200);
    const metrics = await get('/metrics', bearer(API_TOKEN));
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
  });

  it('lets `tailscope report --url` through with TAILSCOPE_API_TOKEN, and says why not without', async () => {
    const stats = (await httpCaller(running.urls.api, API_TOKEN)('GET', '/api/v1/stats')) as {
      spans: unknown;
    };
    expect(typeof stats.spans).toBe('number');
    await expect(httpCaller(running.urls.api)('GET', '/api/v1/stats')).rejects.toThrow(
      /TAILSCOPE_API_TOKENS/,
    );
  });

  it('keeps the probes and the dashboard shell open', async () => {
    expect((await get('/healthz')).status).toBe(200);
    expect((await get('/readyz')).status).toBe(200);
    // The app (or the page saying it is not built) holds no data: it loads, then asks to log in.
    expect([200, 503]).toContain((await get('/')).status);
    expect(await (await get('/api/v1/session')).json()).toEqual({
      required: true,
      authenticated: false,
    });
  });
});

describe('the dashboard session', () => {
  const session = (method: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${running.urls.api}/api/v1/session`, {
      method,
      headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });

  it('refuses a wrong token and sets no cookie', async () => {
    const res = await session('POST', { token: WRONG });
    expect(res.status).toBe(401);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(((await res.json()) as { error: string }).error).toMatch(/TAILSCOPE_API_TOKENS/);
  });

  it('turns the right token into an HttpOnly, SameSite=Strict cookie that opens the API', async () => {
    const res = await session('POST', { token: API_TOKEN });
    expect(res.status).toBe(200);
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^tailscope_session=/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\//);
    const pair = cookie.split(';')[0] ?? '';
    const stats = await fetch(`${running.urls.api}/api/v1/stats`, { headers: { Cookie: pair } });
    expect(stats.status).toBe(200);
    expect(await (await session('GET', undefined, { Cookie: pair })).json()).toEqual({
      required: true,
      authenticated: true,
    });
    // The same cookie sent by a page of another origin on this host (same site) opens nothing.
    const sameSite = await fetch(`${running.urls.api}/api/v1/stats`, {
      headers: { Cookie: pair, 'Sec-Fetch-Site': 'same-site' },
    });
    expect(sameSite.status).toBe(401);
    expect(((await sameSite.json()) as { error: string }).error).toMatch(/dashboard's own pages/);
    const out = await session('DELETE', undefined, { Cookie: pair });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^tailscope_session=;.*Expires=Thu, 01 Jan 1970/);
  });
});
