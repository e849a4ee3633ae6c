import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../src/config';
import { serve, type Running } from '../src/server/serve';

// The dashboard tells people where to send traces: /api/v1/stats must name the bound ports,
// not the defaults, so a server started on other ports (or port 0) is still described right.
describe('/api/v1/stats listen', () => {
  let dir: string;
  let running: Running;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tailscope-listen-'));
    running = await serve(
      loadSettings({}, { dataDir: dir, port: '0', otlpHttpPort: '0', otlpGrpcPort: '0' }),
    );
  });

  afterAll(async () => {
    await running.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('names the addresses the server really listens on', async () => {
    const stats = (await (await fetch(`${running.urls.api}/api/v1/stats`)).json()) as {
      listen?: { api: string; otlpHttp: string; otlpGrpc: string };
    };
    expect(stats.listen).toEqual(running.urls);
    expect(stats.listen?.otlpHttp).not.toMatch(/:4318$/);
    // The OTLP/HTTP address answers: an empty export is accepted there.
    const res = await fetch(`${stats.listen?.otlpHttp ?? ''}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"resourceSpans":[]}',
    });
    expect(res.status).toBe(200);
  });
});
