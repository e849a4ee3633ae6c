import {
  CALL_BUCKETS_TABLE,
  CALL_BUCKET_CHUNKS_TABLE,
  CALL_BUCKET_OPEN_TABLE,
} from '../call-buckets/tables';
import type { Accelerators, Store } from '../engine/client';
import {
  CHUNKS_TABLE,
  DUPLICATES_TABLE,
  EDGES_TABLE,
  FANOUT_OPEN_TABLE,
  FANOUTS_TABLE,
} from '../fanouts/tables';
import { sql } from '../sql/template';
import { TRACE_SPANS_TABLES } from '../traces/trace-spans';
import { hasSpanCounts } from '../traces/span-counts';
import { TYPED_ATTRIBUTES_TABLE } from '../traces/typed-attributes';
import { WINDOWS_TABLE, WINDOWS_VIEWS } from '../metrics/evidence-windows';

/**
 * Which optional tables a store has, found once at start. Tailscope's own tables (stored
 * fan-outs, typed attributes, episode series) and the trace-id time-range table only make reads faster or
 * richer: a Collector's table opened read-only may lack any of them, and every read then takes
 * its fallback (live fan-out detection, live episode series, string attribute values, a trace looked up by its id
 * alone). Also checks the spans table is there, so a wrong name fails at start, not per query.
 */
export async function detectAccelerators(store: Store): Promise<Accelerators> {
  const rows = await store.query<{ name: string }>(
    sql`SELECT name FROM system.tables WHERE database = currentDatabase()
      AND name IN (${[
        store.tracesTable,
        `${store.tracesTable}_trace_id_ts`,
        ...TRACE_SPANS_TABLES,
        FANOUTS_TABLE,
        CHUNKS_TABLE,
        EDGES_TABLE,
        DUPLICATES_TABLE,
        TYPED_ATTRIBUTES_TABLE,
        CALL_BUCKETS_TABLE,
        CALL_BUCKET_CHUNKS_TABLE,
        CALL_BUCKET_OPEN_TABLE,
        FANOUT_OPEN_TABLE,
        WINDOWS_TABLE,
        ...WINDOWS_VIEWS,
      ]})`,
  );
  const has = new Set(rows.map((r) => r.name));
  if (!has.has(store.tracesTable))
    throw new Error(`the spans table ${store.tracesTable} does not exist in ${store.description}`);
  const found: Accelerators = {
    traceIdTs: has.has(`${store.tracesTable}_trace_id_ts`),
    // Without its view the table misses every span inserted since, without its boundary and
    // records what it holds is unknown: read the spans table.
    traceSpans: TRACE_SPANS_TABLES.every((t) => has.has(t)),
    // Stored fan-outs, request edges and chunk duplicates are built together; all or none.
    fanouts: [FANOUTS_TABLE, CHUNKS_TABLE, EDGES_TABLE, DUPLICATES_TABLE].every((t) => has.has(t)),
    typedAttributes: has.has(TYPED_ATTRIBUTES_TABLE),
    callBuckets: has.has(CALL_BUCKETS_TABLE) && has.has(CALL_BUCKET_CHUNKS_TABLE),
    // The open chunk's buckets live in the same rows table; their records in their own.
    openCallBuckets:
      has.has(CALL_BUCKETS_TABLE) &&
      has.has(CALL_BUCKET_CHUNKS_TABLE) &&
      has.has(CALL_BUCKET_OPEN_TABLE),
    openFanouts: has.has(FANOUT_OPEN_TABLE),
    // Without its views the table misses every point inserted since: read the raw tables.
    metricWindows: [WINDOWS_TABLE, ...WINDOWS_VIEWS].every((t) => has.has(t)),
    // A projection of the spans table itself (migration 14); the counts read the spans without it.
    spanCounts: await hasSpanCounts(store),
  };
  store.accelerators = found;
  return found;
}
