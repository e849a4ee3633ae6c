import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings, type Env } from '../src/config';
import { serve, type Running } from '../src/server/serve';
import { sql, type Store } from '../src/store';
import { applyRetention } from '../src/store/schema/retention';
import { insertSpans, mixedSpans } from './analysis-support';

/**
 * TAILSCOPE_RETENTION_DAYS*: the exporter's TTL clause on each table, applied at start, changed
 * by a restart with another value, left alone on a restart with the same one, removed with 0.
 */

async function ttlOf(store: Store, table: string): Promise<string> {
  const rows = await store.query<{ q: string }>(
    sql`SELECT create_table_query AS q FROM system.tables WHERE database = currentDatabase() AND name = ${table}`,
  );
  const create = rows[0]?.q ?? '';
  return / TTL (.+?)(?: SETTINGS |$)/s.exec(create)?.[1]?.trim() ?? '';
}

describe('retention', () => {
  let dir: string;
  let running: Running | undefined;

  const start = async (env: Env): Promise<Running> => {
    await running?.close();
    running = await serve(
      loadSettings(env, {
        dataDir: join(dir, 'data'),
        port: '0',
        otlpHttpPort: '0',
        otlpGrpcPort: '0',
      }),
    );
    return running;
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tailscope-retention-'));
  });
  afterAll(async () => {
    await running?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sets, changes and removes the TTL of every table as the exporter writes it', async () => {
    let r = await start({});
    // Unset: no TTL anywhere (a fresh store).
    expect(await ttlOf(r.store, 'otel_traces')).toBe('');

    r = await start({ TAILSCOPE_RETENTION_DAYS: '7', TAILSCOPE_RETENTION_DAYS_FANOUTS: '2' });
    expect(await ttlOf(r.store, 'otel_traces')).toBe('toDateTime(Timestamp) + toIntervalDay(7)');
    expect(await ttlOf(r.store, 'otel_traces_trace_id_ts')).toBe(
      'toDateTime(Start) + toIntervalDay(7)',
    );
    expect(await ttlOf(r.store, 'tailscope_typed_attributes')).toBe(
      'toDateTime(Timestamp) + toIntervalDay(7)',
    );
    expect(await ttlOf(r.store, 'tailscope_fanouts')).toBe(
      'toDateTime(intDiv(s0, 1000000000)) + toIntervalDay(2)',
    );
    expect(await ttlOf(r.store, 'tailscope_call_buckets')).toBe(
      'toDateTime(bucket * 10) + toIntervalDay(2)',
    );
    for (const t of ['otel_metrics_gauge', 'otel_metrics_sum', 'otel_metrics_summary'])
      expect(await ttlOf(r.store, t)).toBe('toDateTime(TimeUnix) + toIntervalDay(7)');
    const stats = (await (await fetch(`${r.urls.api}/api/v1/stats`)).json()) as Record<
      string,
      unknown
    >;
    expect(stats.retentionDays).toEqual({ traces: 7, typedAttributes: 7, fanouts: 2 });
    // The same setting again changes nothing: no statement to run.
    expect(await applyRetention(r.store, r.settings)).toEqual([]);

    r = await start({
      TAILSCOPE_RETENTION_DAYS: '7',
      TAILSCOPE_RETENTION_DAYS_TRACES: '30',
      TAILSCOPE_RETENTION_DAYS_METRICS: '3',
    });
    expect(await ttlOf(r.store, 'otel_traces')).toBe('toDateTime(Timestamp) + toIntervalDay(30)');
    expect(await ttlOf(r.store, 'otel_metrics_histogram')).toBe(
      'toDateTime(TimeUnix) + toIntervalDay(3)',
    );
    expect(await ttlOf(r.store, 'tailscope_typed_attributes')).toBe(
      'toDateTime(Timestamp) + toIntervalDay(7)',
    );
    expect(await ttlOf(r.store, 'tailscope_fanouts')).toBe(
      'toDateTime(intDiv(s0, 1000000000)) + toIntervalDay(7)',
    );

    // Unset again: the TTL stays as it is (it may be the Collector's); 0 removes it.
    r = await start({});
    expect(await ttlOf(r.store, 'otel_traces')).toBe('toDateTime(Timestamp) + toIntervalDay(30)');
    r = await start({ TAILSCOPE_RETENTION_DAYS: '0' });
    expect(await ttlOf(r.store, 'otel_traces')).toBe('');
    expect(await ttlOf(r.store, 'tailscope_fanouts')).toBe('');
    expect(await ttlOf(r.store, 'tailscope_call_buckets')).toBe('');
  }, 120_000);

  it('drops spans past the TTL and the stats show the oldest span kept', async () => {
    const r = await start({ TAILSCOPE_RETENTION_DAYS: '30' });
    const now = BigInt(Date.now()) * 1_000_000n;
    const day = 86_400_000_000_000n;
    // Two sets of spans: 40 days old (past the TTL) and 1 day old.
    const old = mixedSpans(2, 50).map((s, i) => ({ ...s, startNs: now - 40n * day + BigInt(i) }));
    const fresh = mixedSpans(2, 50).map((s, i) => ({
      ...s,
      traceId: `f${s.traceId.slice(1)}`,
      startNs: now - day + BigInt(i),
    }));
    await insertSpans(r.store, [...old, ...fresh]);
    // TTL runs on merges; OPTIMIZE FINAL makes it run now (ttl_only_drop_parts: whole parts).
    await r.store.command(sql`OPTIMIZE TABLE otel_traces FINAL`);
    const stats = (await (await fetch(`${r.urls.api}/api/v1/stats`)).json()) as {
      spans: number;
      oldestUnixNano: string;
    };
    expect(stats.spans).toBe(fresh.length);
    const oldest = BigInt(stats.oldestUnixNano);
    expect(oldest).toBeGreaterThanOrEqual(now - day);
    expect(oldest).toBe(fresh.reduce((m, s) => (s.startNs < m ? s.startNs : m), now));
  }, 120_000);
});
