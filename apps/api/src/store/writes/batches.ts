import type { Store } from '../engine/client';
import { sql } from '../sql/template';

/**
 * `tailscope_ingest_batches`: the store's own record of the write-ahead-log batches it was sent,
 * per data directory (`Dir`, the id in every deduplication token). A `begun` row is written before
 * the batch's insert, a `dead` row when a batch was quarantined. The ingest writer is sequential,
 * so only the newest row can be unfinished: when the local batch log is lost, that row says which
 * records are in (everything before it) and which batch to repeat with its own token (the engine
 * drops the repeat if it was committed). The DDL is migration 4 in schema.ts.
 */
export const INGEST_BATCHES_TABLE = 'tailscope_ingest_batches';

export interface RecordedBatch {
  first: number;
  last: number;
  state: 'begun' | 'dead';
}

export async function recordBatch(store: Store, dir: string, batch: RecordedBatch): Promise<void> {
  await store.command(sql`INSERT INTO tailscope_ingest_batches (Dir, First, Last, State, At)
    VALUES (${dir}, ${batch.first}, ${batch.last}, ${batch.state}, now64(6))`);
}

/** The newest batch recorded for this data directory. */
export async function lastRecordedBatch(
  store: Store,
  dir: string,
): Promise<RecordedBatch | undefined> {
  const rows = await store.query<{ first: string; last: string; state: string }>(sql`
    SELECT toString(First) AS first, toString(Last) AS last, State AS state
    FROM tailscope_ingest_batches WHERE Dir = ${dir}
    ORDER BY At DESC, Last DESC LIMIT 1`);
  const r = rows[0];
  if (!r) return undefined;
  return {
    first: Number(r.first),
    last: Number(r.last),
    state: r.state === 'dead' ? 'dead' : 'begun',
  };
}
