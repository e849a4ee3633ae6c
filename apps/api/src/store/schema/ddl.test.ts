import { describe, expect, it } from 'vitest';
import { checkIdent, type DdlContext } from './ddl';
import { bootstrapDdl, MIGRATIONS, SCHEMA_VERSION } from './migrations';

/** Every DDL statement Tailscope runs, in order, for one context. */
function allDdl(ctx: DdlContext): string[] {
  return [...bootstrapDdl(ctx), ...MIGRATIONS.flatMap((m) => m.statements(ctx))];
}

// A MergeTree spans table, as migration 14 measures it on a store Tailscope created.
const LOCAL: DdlContext = { database: 'default', cluster: undefined, tracesMergeTree: true };
const CLUSTER: DdlContext = { database: 'tailscope', cluster: 'main' };

function document(ctx: DdlContext): string {
  const header = `-- DDL for database ${ctx.database}${ctx.cluster ? `, cluster ${ctx.cluster}` : ''}`;
  const body = [
    ...bootstrapDdl(ctx).map((s) => `-- bootstrap\n${s};`),
    ...MIGRATIONS.flatMap((m) =>
      m.statements(ctx).map((s) => `-- migration ${m.version}: ${m.name}\n${s};`),
    ),
  ];
  return `${header}\n\n${body.join('\n\n')}\n`;
}

describe('MIGRATIONS', () => {
  it('is append-only: versions 1, 2, 3, ... with distinct names', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(new Set(MIGRATIONS.map((m) => m.name)).size).toBe(MIGRATIONS.length);
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
  });

  it('creates every table Tailscope uses, each statement idempotent', () => {
    const creates = allDdl(LOCAL).filter((s) => s.startsWith('CREATE '));
    for (const s of creates)
      expect(s).toMatch(/^CREATE (TABLE|MATERIALIZED VIEW|DATABASE) IF NOT EXISTS /);
    const created = creates.map((s) => /IF NOT EXISTS (\S+)/.exec(s)?.[1]);
    expect(created).toEqual([
      'default.tailscope_migrations',
      'default.otel_traces',
      'default.otel_traces_trace_id_ts',
      'default.otel_traces_trace_id_ts_mv',
      'default.tailscope_typed_attributes',
      'default.tailscope_fanouts',
      'default.tailscope_fanout_chunks',
      'default.tailscope_ingest_batches',
      'default.tailscope_edges',
      'default.tailscope_call_buckets',
      'default.tailscope_call_bucket_chunks',
      'default.tailscope_chunk_duplicates',
      'default.tailscope_call_bucket_open',
      'default.otel_metrics_gauge',
      'default.otel_metrics_sum',
      'default.otel_metrics_histogram',
      'default.otel_metrics_exponential_histogram',
      'default.otel_metrics_summary',
      'default.tailscope_fanout_open',
      'default.tailscope_metric_windows',
      'default.tailscope_metric_windows_gauge_mv',
      'default.tailscope_metric_windows_sum_mv',
      'default.tailscope_metric_windows_histogram_mv',
      'default.tailscope_trace_spans',
      'default.tailscope_trace_spans_from',
      'default.tailscope_trace_span_chunks',
      'default.tailscope_trace_spans_mv',
      'default.tailscope_span_split_buckets',
    ]);
  });

  it("bounds the narrow span copy's view at the end of the newest stored span's minute", () => {
    const v12 = MIGRATIONS.find((m) => m.version === 12);
    // An empty store: the view copies every span, no boundary.
    expect(v12?.statements(LOCAL).join('\n')).not.toMatch(/WHERE|INSERT/);
    const ddl = v12?.statements({ ...LOCAL, spansEndNs: 1_700_000_041_500_000_000n }) ?? [];
    expect(ddl).toContain(
      'INSERT INTO default.tailscope_trace_spans_from VALUES (1700000100000000000)',
    );
    expect(ddl.at(-1)).toMatch(
      /WHERE Timestamp >= fromUnixTimestamp64Nano\(toInt64\(1700000100000000000\)\)$/,
    );
    // A span at a minute's very start: the boundary is the next minute's.
    expect(v12?.statements({ ...LOCAL, spansEndNs: 1_700_000_040_000_000_000n }).join()).toContain(
      'VALUES (1700000100000000000)',
    );
  });

  it('in cluster mode, puts every statement ON CLUSTER and every table on a Replicated engine', () => {
    const ddl = allDdl(CLUSTER);
    expect(ddl[0]).toBe('CREATE DATABASE IF NOT EXISTS tailscope ON CLUSTER main');
    // A fill of a derived table from stored rows runs once, on one replica: it replicates.
    for (const s of ddl.filter((d) => !d.startsWith('INSERT INTO ')))
      expect(s).toContain(' ON CLUSTER main');
    const engines = ddl.flatMap((s) => /ENGINE = (\w+)/.exec(s)?.[1] ?? []);
    expect(engines.length).toBe(23);
    for (const e of engines) expect(e).toMatch(/^Replicated/);
    for (const s of allDdl(LOCAL)) expect(s).not.toMatch(/ON CLUSTER|Replicated/);
  });

  it('rejects a database or cluster name that is not a plain identifier', () => {
    expect(() => allDdl({ database: 'x; DROP TABLE otel_traces', cluster: undefined })).toThrow(
      /invalid ClickHouse identifier/,
    );
    expect(() => allDdl({ database: 'default', cluster: 'a b' })).toThrow(
      /invalid ClickHouse identifier: "a b"/,
    );
    expect(checkIdent('tailscope_2')).toBe('tailscope_2');
  });

  it('builds the DDL a reviewer can read (local and cluster)', async () => {
    await expect(document(LOCAL)).toMatchFileSnapshot('__snapshots__/ddl.sql');
    await expect(document(CLUSTER)).toMatchFileSnapshot('__snapshots__/ddl-cluster.sql');
  });
});
