import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../engine/client';
import { migrate, schemaVersion, SCHEMA_VERSION } from './migrations';
import { ident, sql } from '../sql/template';
import { selectStats, selectTrace } from '../traces/spans';
import { copyBoundary, copyCovers, TRACE_SPANS_TABLES } from '../traces/trace-spans';
import { copyChunk, staleChunks, startTraceSpansBackfill } from '../traces/trace-spans-backfill';

describe('otel_traces schema on the embedded engine', () => {
  let dir: string;
  let store: Store;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tailscope-schema-'));
    store = openStore({ dataDir: dir });
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates the exporter schema idempotently and records its version', async () => {
    expect(await migrate(store)).toBe(SCHEMA_VERSION);
    expect(await migrate(store)).toBe(SCHEMA_VERSION);
    expect(await schemaVersion(store)).toBe(SCHEMA_VERSION);
    const cols = await store.query<{ name: string; type: string; compression_codec: string }>(
      sql`SELECT name, type, compression_codec FROM system.columns WHERE database = currentDatabase() AND table = 'otel_traces' ORDER BY position`,
    );
    const byName = new Map(cols.map((c) => [c.name, c]));
    expect(byName.get('Timestamp')?.type).toBe('DateTime64(9)');
    expect(byName.get('Timestamp')?.compression_codec).toBe('CODEC(Delta(8), ZSTD(1))');
    expect(byName.get('Duration')?.type).toBe('UInt64');
    expect(byName.get('Duration')?.compression_codec).toBe('CODEC(T64, ZSTD(1))');
    expect(byName.get('SpanAttributes')?.type).toBe('Map(LowCardinality(String), String)');
    expect(byName.get('Events.Timestamp')?.type).toBe('Array(DateTime64(9))');
    expect(byName.get('Links.Attributes')?.type).toBe('Array(Map(LowCardinality(String), String))');
    const tables = await store.query<{ name: string; sorting_key: string; partition_key: string }>(
      sql`SELECT name, sorting_key, partition_key FROM system.tables WHERE database = currentDatabase() AND name LIKE 'otel_traces%' ORDER BY name`,
    );
    expect(tables.map((t) => t.name)).toEqual([
      'otel_traces',
      'otel_traces_trace_id_ts',
      'otel_traces_trace_id_ts_mv',
    ]);
    expect(tables[0]?.sorting_key).toBe('ServiceName, SpanName, toDateTime(Timestamp), Timestamp');
    expect(tables[0]?.partition_key).toBe('toDate(Timestamp)');
    const indexes = await store.query<{ name: string }>(
      sql`SELECT name FROM system.data_skipping_indices WHERE database = currentDatabase() AND table = 'otel_traces' ORDER BY name`,
    );
    expect(indexes.map((i) => i.name)).toEqual([
      'idx_duration',
      'idx_lower_span_name',
      'idx_res_attr_key',
      'idx_res_attr_value',
      'idx_span_attr_key',
      'idx_span_attr_value',
      'idx_trace_id',
    ]);
  });

  it('creates our own tables too, and brings a version-1 store up to date', async () => {
    const ours = async () =>
      (
        await store.query<{ name: string }>(
          sql`SELECT name FROM system.tables WHERE database = currentDatabase() AND name LIKE 'tailscope_%' ORDER BY name`,
        )
      ).map((t) => t.name);
    expect(await ours()).toEqual([
      'tailscope_call_bucket_chunks',
      'tailscope_call_bucket_open',
      'tailscope_call_buckets',
      'tailscope_chunk_duplicates',
      'tailscope_edges',
      'tailscope_fanout_chunks',
      'tailscope_fanout_open',
      'tailscope_fanouts',
      'tailscope_ingest_batches',
      'tailscope_metric_windows',
      'tailscope_metric_windows_gauge_mv',
      'tailscope_metric_windows_histogram_mv',
      'tailscope_metric_windows_sum_mv',
      'tailscope_migrations',
      'tailscope_span_split_buckets',
      'tailscope_trace_span_chunks',
      'tailscope_trace_spans',
      'tailscope_trace_spans_from',
      'tailscope_trace_spans_mv',
      'tailscope_typed_attributes',
    ]);
    // A store written before these tables were migrations: version 1 recorded, tables absent.
    for (const t of [
      'tailscope_call_bucket_chunks',
      'tailscope_call_bucket_open',
      'tailscope_call_buckets',
      'tailscope_chunk_duplicates',
      'tailscope_edges',
      'tailscope_fanout_chunks',
      'tailscope_fanout_open',
      'tailscope_fanouts',
      'tailscope_ingest_batches',
      'tailscope_typed_attributes',
      'tailscope_metric_windows_gauge_mv',
      'tailscope_metric_windows_histogram_mv',
      'tailscope_metric_windows_sum_mv',
      'tailscope_metric_windows',
      'tailscope_trace_spans_mv',
      'tailscope_trace_spans',
      'tailscope_trace_spans_from',
      'tailscope_trace_span_chunks',
      'tailscope_span_split_buckets',
    ])
      await store.command(sql`DROP TABLE ${ident(t)}`);
    await store.command(sql`DELETE FROM tailscope_migrations WHERE version > 1`);
    expect(await schemaVersion(store)).toBe(1);
    expect(await migrate(store)).toBe(SCHEMA_VERSION);
    expect(await schemaVersion(store)).toBe(SCHEMA_VERSION);
    expect(await ours()).toHaveLength(20);
    // Migration 15: the narrow copy's small compressed blocks.
    const narrow = await store.query<{ e: string }>(
      sql`SELECT engine_full AS e FROM system.tables WHERE database = currentDatabase() AND name = 'tailscope_trace_spans'`,
    );
    expect(narrow[0]?.e).toContain('min_compress_block_size = 8192');
    expect(narrow[0]?.e).toContain('max_compress_block_size = 65536');
  });

  it('finds a trace by id through the time-range table, with nanosecond times', async () => {
    await store.command(sql`INSERT INTO otel_traces (Timestamp, TraceId, SpanId, SpanName, ServiceName, Duration)
      VALUES (fromUnixTimestamp64Nano(toInt64(${'1700000000123456789'})), ${'aa'.repeat(16)}, ${'bb'.repeat(8)}, 'op', 'svc', 42)`);
    const spans = await selectTrace(store, 'aa'.repeat(16));
    expect(spans).toHaveLength(1);
    expect(spans[0]?.StartNs).toBe('1700000000123456789');
    expect(spans[0]?.Duration).toBe('42');
    expect(await selectTrace(store, 'cc'.repeat(16))).toEqual([]);
    const stats = await selectStats(store);
    expect(stats).toMatchObject({
      spans: 1,
      traces: 1,
      services: 1,
      oldestUnixNano: '1700000000123456789',
    });
  });

  it('copies spans to the narrow table: the view from its boundary on, the backfill before it', async () => {
    const insert = (traceId: string, spanId: string, atNs: string) =>
      store.command(sql`INSERT INTO otel_traces (Timestamp, TraceId, SpanId, SpanName, SpanKind, ServiceName, Duration, ResourceAttributes, SpanAttributes)
        VALUES (fromUnixTimestamp64Nano(toInt64(${atNs})), ${traceId}, ${spanId}, 'op', 'Client', 'svc', 7,
          map('k8s.node.name', 'node-1'), map('server.address', 'db:5432'))`);
    const narrow = async (traceId: string) =>
      store.query<{ SpanId: string; Host: string; Peer: string; Duration: string }>(
        sql`SELECT SpanId, CAST(Host, 'String') AS Host, CAST(Peer, 'String') AS Peer, toString(Duration) AS Duration
          FROM tailscope_trace_spans WHERE TraceId = ${traceId} ORDER BY SpanId`,
      );
    const row = (spanId: string) => ({
      SpanId: spanId,
      Host: 'node-1',
      Peer: 'db:5432',
      Duration: '7',
    });
    const trace = 'dd'.repeat(16);
    await store.command(sql`TRUNCATE TABLE otel_traces`);
    // The minute [1700000040, 1700000100) s holds the span stored before the migration.
    const minuteNs = 1_700_000_040_000_000_000n;
    const at = (s: number) => (minuteNs + BigInt(s) * 1_000_000_000n).toString();
    await insert(trace, '01'.repeat(8), at(1));
    // As a store migrated before version 12: the span stored, no narrow copy.
    for (const t of [
      'tailscope_trace_spans_mv',
      'tailscope_trace_spans',
      'tailscope_trace_spans_from',
      'tailscope_trace_span_chunks',
    ])
      await store.command(sql`DROP TABLE ${ident(t)}`);
    await store.command(sql`DELETE FROM tailscope_migrations WHERE version >= 12`);
    // The migration copies nothing (it used to copy every span before the receivers opened).
    expect(await migrate(store)).toBe(SCHEMA_VERSION);
    expect(await narrow(trace)).toEqual([]);
    expect(await copyBoundary(store)).toBe(minuteNs + 60_000_000_000n);
    const window = [minuteNs, minuteNs + 120_000_000_000n] as const;
    expect(await copyCovers(store, ...window)).toBe(false);
    // After the boundary: the view copies it; before it (a late span): only the backfill does.
    await insert(trace, '02'.repeat(8), at(61));
    await insert(trace, '03'.repeat(8), at(2));
    expect(await narrow(trace)).toEqual([row('02'.repeat(8))]);
    expect(await copyCovers(store, minuteNs + 60_000_000_000n, window[1])).toBe(true);
    const lines: string[] = [];
    const backfill = startTraceSpansBackfill(store, { log: (l) => lines.push(l) });
    try {
      expect(await backfill.drain()).toBe(1);
      expect(await narrow(trace)).toEqual(['01', '02', '03'].map((s) => row(s.repeat(8))));
      expect(await copyCovers(store, ...window)).toBe(true);
      expect(lines).toEqual([
        'tailscope: copying 2 stored spans (1 minutes) to tailscope_trace_spans in the background',
        expect.stringMatching(
          /^tailscope: tailscope_trace_spans holds the stored spans: 2 copied in \d+ s$/,
        ),
      ]);
      // Another late span: the minute is stale, read from the spans table, then copied again
      // (its rows replaced, none twice).
      await insert(trace, '04'.repeat(8), at(3));
      expect(await copyCovers(store, ...window)).toBe(false);
      expect(await staleChunks(store)).toEqual([{ chunk: minuteNs / 60_000_000_000n, spans: 3n }]);
      expect(await copyChunk(store, minuteNs / 60_000_000_000n, 1n)).toBe(3n);
      expect(await narrow(trace)).toEqual(['01', '02', '03', '04'].map((s) => row(s.repeat(8))));
      expect(await copyCovers(store, ...window)).toBe(true);
      expect(await staleChunks(store)).toEqual([]);
    } finally {
      await backfill.stop();
    }
  });

  it('backfills in passes that give way to analyses between minutes', async () => {
    await store.command(sql`TRUNCATE TABLE otel_traces`);
    const minute = (i: number) =>
      (1_700_000_040_000_000_000n + BigInt(i) * 60_000_000_000n).toString();
    for (const i of [0, 1, 2])
      await store.command(sql`INSERT INTO otel_traces (Timestamp, TraceId, SpanId, SpanName, SpanKind, ServiceName, Duration)
        VALUES (fromUnixTimestamp64Nano(toInt64(${minute(i)})), ${'ee'.repeat(16)}, ${`0${String(i)}`.repeat(8)}, 'op', 'Server', 'svc', 1)`);
    for (const t of TRACE_SPANS_TABLES) await store.command(sql`DROP TABLE ${ident(t)}`);
    await store.command(sql`DELETE FROM tailscope_migrations WHERE version >= 12`);
    await migrate(store);
    let busy = true;
    // The timer never fires here: each pass is run by hand.
    const backfill = startTraceSpansBackfill(store, { yieldTo: () => busy, intervalMs: 3_600_000 });
    try {
      // A person waits on an analysis: the pass copies one minute (newest first), then stops.
      expect(await backfill.runOnce()).toBe(1);
      expect((await staleChunks(store)).map((p) => p.chunk)).toEqual(
        [1, 0].map((i) => BigInt(minute(i)) / 60_000_000_000n),
      );
      busy = false;
      expect(await backfill.runOnce()).toBe(2);
      expect(await staleChunks(store)).toEqual([]);
    } finally {
      await backfill.stop();
    }
  });
});
