import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../src/config';
import { serve, type Running } from '../src/server/serve';
import { sql } from '../src/store';

// With --self-trace, the API's own requests arrive as spans of service `tailscope` through its
// own OTLP endpoint, so the dashboard can watch Tailscope's tail.
describe('self-tracing', () => {
  let dir: string;
  let running: Running;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tailscope-self-'));
    running = await serve(
      loadSettings(
        {},
        { dataDir: dir, port: '0', otlpHttpPort: '0', otlpGrpcPort: '0', selfTrace: 'true' },
      ),
    );
  });

  afterAll(async () => {
    await running.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores a SERVER span per API request, with route and status, and none for OTLP requests', async () => {
    for (let i = 0; i < 3; i++)
      expect((await fetch(`${running.urls.api}/api/v1/stats`)).status).toBe(200);
    expect((await fetch(`${running.urls.api}/api/v1/traces/zz`)).status).toBe(400);
    type Row = { SpanName: string; SpanKind: string; route: string; status: string };
    let rows: Row[] = [];
    // The batch processor exports every second; the ingest queue then flushes on demand.
    for (let i = 0; i < 100 && rows.length < 4; i++) {
      await new Promise((r) => setTimeout(r, 200));
      await running.ingest.flush();
      rows = await running.store.query<Row>(sql`
        SELECT SpanName, SpanKind, SpanAttributes['http.route'] AS route,
          SpanAttributes['http.response.status_code'] AS status
        FROM otel_traces WHERE ServiceName = 'tailscope' ORDER BY Timestamp`);
    }
    expect(rows.filter((r) => r.SpanName === 'GET /api/v1/stats')).toHaveLength(3);
    expect(rows.every((r) => r.SpanKind === 'Server')).toBe(true);
    const bad = rows.find((r) => r.route === '/api/v1/traces/:traceId');
    expect(bad?.status).toBe('400');
    expect(
      rows.some((r) => r.SpanName.includes('/v1/traces') && !r.SpanName.includes('/api/')),
    ).toBe(false);
  });
});
