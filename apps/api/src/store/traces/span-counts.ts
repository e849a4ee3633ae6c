import type { Store } from '../engine/client';
import { checkIdent, onCluster, qualified, type DdlContext } from '../schema/ddl';
import { raw, sql } from '../sql/template';
import { inWindow, ns } from './filters';
import { TRACES } from './tables';
import { floorDiv } from '../floor-div';

/**
 * Spans per 10 s of start, kept by the engine beside the spans table's own parts: an aggregate
 * projection of the spans table (migration 14). Every check that a stored chunk or bucket is
 * still current counts the spans in its window (fanouts/cache.ts, call-buckets/open.ts, the
 * narrow copy's minutes), and each count read every span's start: 80-140 ms an hour at 10M
 * spans, twice in an incidents answer. From the projection it reads a few rows per part: 7-25 ms.
 *
 * A projection is part of each part, written with it and merged with it, so its counts are
 * exactly the part's, whoever inserts (the ingest, a Collector writing the same table) and
 * whatever drops parts (TTL). Parts written before the projection existed are read from their
 * rows until the migration's materialization reaches them; the engine unions both. It adds no
 * column, so the table stays what a Collector writes.
 *
 * The engine matches a query to the projection by its expressions: the bucket expression and
 * its filter below must stay exactly the projection's (a literal divisor, no time filter on
 * `Timestamp` itself, which the projection does not hold).
 */
export const SPAN_COUNTS_PROJECTION = 'tailscope_span_counts';
/** The projection's bucket, ns. */
export const SPAN_COUNT_BUCKET_NS = 10_000_000_000n;
const BUCKET_EXPR = `intDiv(toUnixTimestamp64Nano(Timestamp), ${SPAN_COUNT_BUCKET_NS.toString()})`;

/**
 * Migration 14: the projection, then its materialization on the parts already stored (a mutation
 * the engine runs in the background: reads are exact meanwhile, only slower). Not in cluster mode
 * (the spans table there is a distributed one over tables of each shard) and only on a MergeTree
 * spans table (`tracesMergeTree`, measured: a Collector's table may be another engine).
 */
export function spanCountsDdl(ctx: DdlContext, table: string): string[] {
  if (ctx.cluster !== undefined || ctx.tracesMergeTree !== true) return [];
  const t = qualified(ctx, checkIdent(table));
  return [
    `ALTER TABLE ${t}${onCluster(ctx)} ADD PROJECTION IF NOT EXISTS ${SPAN_COUNTS_PROJECTION} (SELECT ${BUCKET_EXPR} AS b, count() GROUP BY b)`,
    `ALTER TABLE ${t}${onCluster(ctx)} MATERIALIZE PROJECTION ${SPAN_COUNTS_PROJECTION}`,
  ];
}

/** Whether the spans table is a MergeTree of this server (Migration.measure of migration 14). */
export async function tracesMergeTree(store: Store): Promise<boolean> {
  const rows = await store.query<{ engine: string }>(sql`
    SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = ${store.tracesTable}`);
  const engine = rows[0]?.engine ?? '';
  return engine.endsWith('MergeTree');
}

/** Whether the spans table has the projection (a store opened read-only: accelerators.ts). */
export async function hasSpanCounts(store: Store): Promise<boolean> {
  const rows = await store.query<{ n: string }>(sql`
    SELECT toString(count()) AS n FROM system.tables
    WHERE database = currentDatabase() AND name = ${store.tracesTable}
      AND position(create_table_query, ${`PROJECTION ${SPAN_COUNTS_PROJECTION}`}) > 0`);
  return rows[0]?.n === '1';
}

/**
 * Spans stored per bucket of `bucketNs` of start in [loNs, hiNs) (buckets with none absent), by
 * bucket index (start / bucketNs). From the projection when the store has it and the window is
 * whole 10 s buckets of non-negative time (every caller's is) and `bucketNs` a multiple of them;
 * else from the spans' starts, the same counts.
 */
export async function spansPerBucket(
  store: Store,
  loNs: bigint,
  hiNs: bigint,
  bucketNs: bigint,
): Promise<Map<bigint, bigint>> {
  const out = new Map<bigint, bigint>();
  if (hiNs <= loNs) return out;
  const B = SPAN_COUNT_BUCKET_NS;
  const projected =
    store.accelerators.spanCounts &&
    loNs >= 0n &&
    loNs % B === 0n &&
    hiNs % B === 0n &&
    bucketNs % B === 0n;
  if (projected) {
    const rows = await store.query<{ b: string; n: string }>(sql`
      SELECT toString(${raw(BUCKET_EXPR)}) AS b, toString(count()) AS n
      FROM ${TRACES}
      WHERE ${raw(BUCKET_EXPR)} >= ${ns(loNs / B)} AND ${raw(BUCKET_EXPR)} < ${ns(hiNs / B)}
      GROUP BY ${raw(BUCKET_EXPR)}`);
    for (const r of rows) {
      const b = floorDiv(BigInt(r.b) * B, bucketNs);
      out.set(b, (out.get(b) ?? 0n) + BigInt(r.n));
    }
    return out;
  }
  const rows = await store.query<{ b: string; n: string }>(sql`
    SELECT toString(intDiv(toUnixTimestamp64Nano(Timestamp), ${ns(bucketNs)})) AS b, toString(count()) AS n
    FROM ${TRACES} WHERE ${inWindow(loNs, hiNs)} GROUP BY b`);
  for (const r of rows) out.set(BigInt(r.b), BigInt(r.n));
  return out;
}
