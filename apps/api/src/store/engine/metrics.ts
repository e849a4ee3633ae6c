import type { Store } from './client';
import { sql } from '../sql/template';

/**
 * The engine's tracked memory (`system.metrics` MemoryTracking), the same on the embedded
 * engine and on a server: one row from an in-memory system table, cheap enough for every
 * scrape of /metrics.
 */
export async function selectEngineMemoryBytes(store: Store): Promise<number | undefined> {
  const rows = await store.query<{ value: string | number }>(
    sql`SELECT value FROM system.metrics WHERE metric = 'MemoryTracking'`,
  );
  const v = rows[0]?.value;
  return v === undefined ? undefined : Number(v);
}
