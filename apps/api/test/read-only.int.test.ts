import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGenerator, encodeOtlpJson, presetSpec } from '@tailscope/tracegen';
import { loadSettings } from '../src/config';
import { serve } from '../src/server/serve';
import { serveReadOnly } from '../src/server/serve-read-only';
import { openStore, sql } from '../src/store';
import { exportToTable, exporterTracesDdl, type OtlpJson } from './collector-table';

/**
 * TAILSCOPE_READ_ONLY=1 over a table the Collector's clickhouseexporter wrote: the same spans
 * go over OTLP/HTTP into a normal Tailscope and, through the exporter's column mapping, into
 * the exporter's own DDL in another database under another table name. Every view must answer
 * the same, with and without the exporter's trace-id table, and nothing may be written.
 */

/** The two exporter schema generations, each in its own database under its own table name. */
const TABLES = [
  { schema: 'legacy', db: 'collector', table: 'spans' },
  { schema: 'current', db: 'clickstack', table: 'otel_traces' },
] as const;
const START_MS = Date.parse('2026-01-05T10:00:00Z');

/** One hand-made trace with what tracegen does not send: events, links, an error status. */
function richTrace(): OtlpJson {
  const t = (ms: number): string => (BigInt(START_MS + ms) * 1_000_000n).toString();
  const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
  const traceId = 'feedfacefeedfacefeedfacefeedface';
  return {
    resourceSpans: [
      {
        resource: { attributes: [str('service.name', 'edge'), str('host.name', 'edge-1')] },
        scopeSpans: [
          {
            scope: { name: 'handmade', version: '1.0' },
            spans: [
              {
                traceId,
                spanId: '00000000000000a1',
                name: 'GET /x',
                kind: 2,
                startTimeUnixNano: t(0),
                endTimeUnixNano: t(40),
                attributes: [str('http.route', '/x')],
                status: { code: 2, message: 'upstream failed' },
                events: [{ timeUnixNano: t(5), name: 'retry', attributes: [str('attempt', '2')] }],
                links: [
                  {
                    traceId: '0123456789abcdef0123456789abcdef',
                    spanId: '0123456789abcdef',
                    traceState: 'k=v',
                    attributes: [str('why', 'batch')],
                  },
                ],
              },
              {
                traceId,
                spanId: '00000000000000a2',
                parentSpanId: '00000000000000a1',
                name: 'call db',
                kind: 3,
                startTimeUnixNano: t(2),
                endTimeUnixNano: t(30),
              },
            ],
          },
        ],
      },
    ],
  };
}

interface Views {
  stats: Record<string, unknown>;
  fanouts: unknown;
  stragglers: unknown;
  hosts: unknown;
  leaves: string;
  traces: unknown[];
}

async function views(base: string, traceIds: string[]): Promise<Views> {
  const get = async (path: string): Promise<Response> => {
    const res = await fetch(`${base}${path}`);
    expect(res.status, `${path}: ${res.status}`).toBe(200);
    return res;
  };
  const json = async (path: string): Promise<unknown> => (await get(path)).json();
  const stats = (await json('/api/v1/stats')) as Record<string, unknown>;
  const range = `from=${START_MS - 60_000}&to=${START_MS + 3_600_000}`;
  const fanouts = (await json(`/api/v1/fanouts?${range}`)) as {
    fanouts: { leafService: string; leafOperation: string }[];
  };
  const op = fanouts.fanouts[0];
  expect(op, 'a fan-out operation').toBeDefined();
  const leaf = `leafService=${op?.leafService ?? ''}&leafOperation=${encodeURIComponent(op?.leafOperation ?? '')}`;
  return {
    stats,
    fanouts,
    stragglers: await json(`/api/v1/stragglers?${range}&${leaf}`),
    hosts: await json(`/api/v1/hosts?${range}&${leaf}`),
    leaves: Buffer.from(
      await (await get(`/api/v1/leaves?${range}&${leaf}`)).arrayBuffer(),
    ).toString('base64'),
    traces: await Promise.all(traceIds.map((id) => json(`/api/v1/traces/${id}`))),
  };
}

const STORE_FIELDS = ['spans', 'traces', 'services', 'oldestUnixNano', 'newestUnixNano'];
const storeStats = (s: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(STORE_FIELDS.map((k) => [k, s[k]]));

describe('read-only over a Collector table', () => {
  let dir: string;
  let requests: OtlpJson[];
  let traceIds: string[];
  let expected: Views;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tailscope-read-only-'));
    const gen = createGenerator(presetSpec('sick-host', { hosts: 8 }), {
      requests: 400,
      seed: 5,
      start: START_MS,
      spansPerBatch: 500,
    });
    requests = [...gen.batches()].map((b) => JSON.parse(encodeOtlpJson(b)) as OtlpJson);
    requests.push(richTrace());
    const firstTrace = requests[0]?.resourceSpans[0]?.scopeSpans[0]?.spans[0]?.traceId ?? '';
    traceIds = [firstTrace, 'feedfacefeedfacefeedfacefeedface'];

    // The same spans over OTLP/HTTP JSON into a normal Tailscope.
    const normal = await serve(
      loadSettings(
        {},
        { dataDir: join(dir, 'normal'), port: '0', otlpHttpPort: '0', otlpGrpcPort: '0' },
      ),
    );
    try {
      for (const body of requests) {
        const res = await fetch(`${normal.urls.otlpHttp}/v1/traces`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(res.status).toBe(200);
      }
      await normal.ingest.flush();
      expected = await views(normal.urls.api, traceIds);
    } finally {
      await normal.close();
    }

    // The exporter's tables, filled as the exporter fills them, one insert per request.
    const store = openStore({ dataDir: join(dir, 'collector') });
    try {
      for (const t of TABLES) {
        for (const statement of exporterTracesDdl(t.db, t.table, t.schema))
          await store.client.command({ query: statement });
        for (const body of requests) await exportToTable(store, t.db, t.table, body);
      }
    } finally {
      await store.close();
    }
  }, 300_000);

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const readOnlySettings = (t: (typeof TABLES)[number]) =>
    loadSettings(
      { TAILSCOPE_READ_ONLY: '1', CLICKHOUSE_DATABASE: t.db, TAILSCOPE_TRACES_TABLE: t.table },
      { dataDir: join(dir, 'collector'), port: '0' },
    );

  it.each(TABLES)(
    'answers every view as over OTLP, and writes nothing ($schema exporter schema)',
    async (t) => {
      const ro = await serveReadOnly(readOnlySettings(t));
      try {
        const got = await views(ro.urls.api, traceIds);
        expect(storeStats(got.stats)).toEqual(storeStats(expected.stats));
        expect(got.stats.spans).toBeGreaterThan(1000);
        expect(got.stats.readOnly).toBe(true);
        expect(got.stats.accelerators).toEqual({
          traceIdTs: true,
          traceSpans: false,
          fanouts: false,
          typedAttributes: false,
          callBuckets: false,
          openCallBuckets: false,
          openFanouts: false,
          metricWindows: false,
          spanCounts: false,
        });
        expect(expected.stats.readOnly).toBe(false);
        expect(got.fanouts).toEqual(expected.fanouts);
        // The one difference: why a cause has no metric evidence. The exporter's table here
        // comes without metrics tables; the OTLP store has them, empty.
        const notes = (v: unknown) =>
          (v as { rows: { evidenceNote?: string }[] }).rows.map((r) => r.evidenceNote);
        expect(notes(expected.stragglers)).toContain('no metrics stored over the range');
        expect(notes(got.stragglers)).toContain(
          'no metrics tables in the database (otel_metrics_*): no metric evidence',
        );
        const withoutNotes = (v: unknown) => ({
          ...(v as object),
          rows: (v as { rows: object[] }).rows.map((r) => ({ ...r, evidenceNote: undefined })),
        });
        expect(withoutNotes(got.stragglers)).toEqual(withoutNotes(expected.stragglers));
        expect(got.hosts).toEqual(expected.hosts);
        expect(got.leaves).toEqual(expected.leaves);
        expect(got.traces).toEqual(expected.traces);
        // The hand-made trace keeps its events, links and status through the exporter's columns.
        expect(JSON.stringify(got.traces[1])).toContain('upstream failed');
        expect(JSON.stringify(got.traces[1])).toContain('retry');

        const ready = (await (await fetch(`${ro.urls.api}/readyz`)).json()) as Record<
          string,
          unknown
        >;
        expect(ready).toMatchObject({ status: 'ready', readOnly: true });
        // The engine itself refuses writes on the read-only connection.
        await expect(
          ro.store.command(sql`CREATE TABLE should_not_exist (a UInt8) ENGINE = Memory`),
        ).rejects.toThrow(/readonly/i);
        const ours = await ro.store.query<{ name: string }>(
          sql`SELECT name FROM system.tables WHERE name LIKE 'tailscope%' OR name = 'should_not_exist'`,
        );
        expect(ours).toEqual([]);
      } finally {
        await ro.close();
      }
      // No write-ahead log, no ingest directory: nothing but the engine's own files.
      expect(existsSync(join(dir, 'collector', 'ingest'))).toBe(false);
    },
    300_000,
  );

  it('without the trace-id table, traces are found by their id alone', async () => {
    const t = TABLES[0];
    const store = openStore({ dataDir: join(dir, 'collector') });
    try {
      await store.client.command({ query: `DROP VIEW ${t.db}.${t.table}_trace_id_ts_mv` });
      await store.client.command({ query: `DROP TABLE ${t.db}.${t.table}_trace_id_ts` });
    } finally {
      await store.close();
    }
    const ro = await serveReadOnly(readOnlySettings(t));
    try {
      const got = await views(ro.urls.api, traceIds);
      expect(got.stats.accelerators).toEqual({
        traceIdTs: false,
        traceSpans: false,
        fanouts: false,
        typedAttributes: false,
        callBuckets: false,
        openCallBuckets: false,
        openFanouts: false,
        metricWindows: false,
        spanCounts: false,
      });
      expect(got.traces).toEqual(expected.traces);
      expect(got.fanouts).toEqual(expected.fanouts);
      const missing = await fetch(`${ro.urls.api}/api/v1/traces/${'ab'.repeat(16)}`);
      expect(missing.status).toBe(404);
    } finally {
      await ro.close();
    }
  }, 300_000);

  it('refuses to start on a table that is not there', async () => {
    await expect(
      serveReadOnly(
        loadSettings(
          {
            TAILSCOPE_READ_ONLY: '1',
            CLICKHOUSE_DATABASE: 'collector',
            TAILSCOPE_TRACES_TABLE: 'nope',
          },
          { dataDir: join(dir, 'collector'), port: '0' },
        ),
      ),
    ).rejects.toThrow(/nope does not exist/);
  });
});
