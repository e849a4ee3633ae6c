import type { Settings } from '../../config';
import type { Store } from '../engine/client';
import { onCluster, qualified, type DdlContext } from './ddl';
import { CALL_BUCKETS_TABLE, SPLIT_BUCKETS_TABLE } from '../call-buckets/tables';
import { FANOUTS_TABLE } from '../fanouts/tables';
import { METRIC_KINDS, METRICS_TABLES } from '../metrics/tables';
import { WINDOWS_TABLE } from '../metrics/evidence-windows';
import { sql } from '../sql/template';
import { TYPED_ATTRIBUTES_TABLE } from '../traces/typed-attributes';
import { TRACE_SPANS_TABLE } from '../traces/trace-spans';

/**
 * Retention as the clickhouseexporter spells it: `TTL toDateTime(Timestamp) + toIntervalDay(N)`
 * on each table, with `ttl_only_drop_parts = 1` (already in the tables' settings) so whole
 * daily partitions go at once instead of rows being rewritten. Applied at start, after the
 * migrations, by `ALTER TABLE ... MODIFY TTL` only where the table's TTL differs from the
 * setting, so a restart with the same setting changes nothing and a new setting takes effect
 * on the next start. Unset leaves a table's TTL as it is (a Collector may have set one); 0
 * removes it.
 */

/** Days per table; undefined: leave the table alone. */
export interface Retention {
  traces: number | undefined;
  typedAttributes: number | undefined;
  fanouts: number | undefined;
  metrics: number | undefined;
}

export function retentionOf(settings: Settings): Retention {
  return {
    traces: settings.retentionDaysTraces ?? settings.retentionDays,
    typedAttributes: settings.retentionDaysTypedAttributes ?? settings.retentionDays,
    fanouts: settings.retentionDaysFanouts ?? settings.retentionDays,
    metrics: settings.retentionDaysMetrics ?? settings.retentionDays,
  };
}

interface TtlTarget {
  table: string;
  /** The time column as DateTime, the expression the TTL adds days to. */
  time: string;
  days: number | undefined;
}

function targets(store: Store, r: Retention): TtlTarget[] {
  return [
    { table: store.tracesTable, time: 'toDateTime(Timestamp)', days: r.traces },
    // The exporter's own TTL for its trace-id table: same days, on the trace's start.
    { table: `${store.tracesTable}_trace_id_ts`, time: 'toDateTime(Start)', days: r.traces },
    // The narrow copy of the spans, as the spans.
    { table: TRACE_SPANS_TABLE, time: 'toDateTime(Timestamp)', days: r.traces },
    { table: TYPED_ATTRIBUTES_TABLE, time: 'toDateTime(Timestamp)', days: r.typedAttributes },
    // s0: the fan-out's start, epoch ns.
    { table: FANOUTS_TABLE, time: 'toDateTime(intDiv(s0, 1000000000))', days: r.fanouts },
    // The stored episode series are derived the same way, under the same setting (bucket: 10 s).
    { table: CALL_BUCKETS_TABLE, time: 'toDateTime(bucket * 10)', days: r.fanouts },
    { table: SPLIT_BUCKETS_TABLE, time: 'toDateTime(bucket * 10)', days: r.fanouts },
    // The exporter's metrics TTL, on each point's time.
    ...METRIC_KINDS.map((k) => ({
      table: METRICS_TABLES[k],
      time: 'toDateTime(TimeUnix)',
      days: r.metrics,
    })),
    // The evidence pre-aggregate of those points (bucket: 10 s), under the same setting.
    { table: WINDOWS_TABLE, time: 'toDateTime(bucket * 10)', days: r.metrics },
  ];
}

/** The TTL clause as ClickHouse prints it back in `create_table_query` (compared, not parsed). */
export function ttlExpression(time: string, days: number): string {
  return `${time} + toIntervalDay(${days})`;
}

/** Statements that bring each table's TTL to the setting; none when they already match. */
export async function retentionStatements(store: Store, r: Retention): Promise<string[]> {
  const ctx: DdlContext = { database: store.database, cluster: store.cluster };
  const wanted = targets(store, r).filter((t) => t.days !== undefined);
  if (wanted.length === 0) return [];
  const rows = await store.query<{ name: string; create: string }>(sql`
    SELECT name, create_table_query AS create FROM system.tables
    WHERE database = currentDatabase() AND name IN (${wanted.map((t) => t.table)})`);
  const current = new Map(rows.map((row) => [row.name, row.create]));
  const out: string[] = [];
  for (const t of wanted) {
    const create = current.get(t.table);
    if (create === undefined) continue;
    const ttl = / TTL (.+?)(?: SETTINGS |$)/s.exec(create)?.[1]?.trim();
    const alter = `ALTER TABLE ${qualified(ctx, t.table)}${onCluster(ctx)}`;
    if (t.days === 0) {
      if (ttl !== undefined) out.push(`${alter} REMOVE TTL`);
    } else if (t.days !== undefined) {
      const expr = ttlExpression(t.time, t.days);
      if (ttl !== expr) out.push(`${alter} MODIFY TTL ${expr}`);
    }
  }
  return out;
}

/** Applies the retention settings (never on a read-only store). Returns the statements run. */
export async function applyRetention(store: Store, settings: Settings): Promise<string[]> {
  if (store.readOnly) return [];
  const statements = await retentionStatements(store, retentionOf(settings));
  for (const statement of statements) await store.client.command({ query: statement });
  return statements;
}
