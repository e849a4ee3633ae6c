import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../engine/client';
import { migrate, schemaVersion, SCHEMA_VERSION } from './migrations';
import { ident, sql } from '../sql/template';
import { selectStats, selectTrace } from '../traces/spans';

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
      'tailscope_trace_spans',
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
    ])
      await store.command(sql`DROP TABLE ${ident(t)}`);
    await store.command(sql`DELETE FROM tailscope_migrations WHERE version > 1`);
    expect(await schemaVersion(store)).toBe(1);
    expect(await migrate(store)).toBe(SCHEMA_VERSION);
    expect(await schemaVersion(store)).toBe(SCHEMA_VERSION);
    expect(await ours()).toHaveLength(17);
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

  it('copies spans to the narrow table: those stored before its migration, then each insert', async () => {
    const insert = (traceId: string, spanId: string) =>
      store.command(sql`INSERT INTO otel_traces (Timestamp, TraceId, SpanId, SpanName, SpanKind, ServiceName, Duration, ResourceAttributes, SpanAttributes)
        VALUES (fromUnixTimestamp64Nano(toInt64(${'1700000001000000000'})), ${traceId}, ${spanId}, 'op', 'Client', 'svc', 7,
          map('k8s.node.name', 'node-1'), map('server.address', 'db:5432'))`);
    const narrow = async (traceId: string) =>
      store.query<{ SpanId: string; Host: string; Peer: string; Duration: string }>(
        sql`SELECT SpanId, CAST(Host, 'String') AS Host, CAST(Peer, 'String') AS Peer, toString(Duration) AS Duration
          FROM tailscope_trace_spans WHERE TraceId = ${traceId} ORDER BY SpanId`,
      );
    const before = 'dd'.repeat(16);
    await insert(before, '01'.repeat(8));
    // As a store migrated before version 12: the span stored, no narrow table.
    await store.command(sql`DROP TABLE tailscope_trace_spans_mv`);
    await store.command(sql`DROP TABLE tailscope_trace_spans`);
    await store.command(sql`DELETE FROM tailscope_migrations WHERE version >= 12`);
    expect(await migrate(store)).toBe(SCHEMA_VERSION);
    await insert(before, '02'.repeat(8));
    expect(await narrow(before)).toEqual([
      { SpanId: '01'.repeat(8), Host: 'node-1', Peer: 'db:5432', Duration: '7' },
      { SpanId: '02'.repeat(8), Host: 'node-1', Peer: 'db:5432', Duration: '7' },
    ]);
  });
});
