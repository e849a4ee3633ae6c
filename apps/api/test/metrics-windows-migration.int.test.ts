import { describe, expect, it } from 'vitest';
import {
  metricWindowsDdl,
  WINDOWS_TABLE,
  WINDOWS_VIEWS,
} from '../src/store/metrics/evidence-windows';
import { migrate } from '../src/store/schema/migrations';
import { sql } from '../src/store/sql/template';
import { compare, METRICS, send, useMetricsServer, type Point } from './metrics-windows-support';

/**
 * The evidence pre-aggregate's migration 11 over a store from before it (metrics-windows.int's
 * helpers): it fills the table from the points already stored, running it again counts nothing
 * twice, and the views it makes keep it filled. A store of its own: after the property test's
 * hundreds of parts (metrics-windows.int) the same DDL and mutations took ~40 s, alone ~3 s.
 */

const server = useMetricsServer();

describe('the evidence pre-aggregate', () => {
  it('is filled from stored points by its migration, and filling it again counts nothing twice', async () => {
    const run = 2000;
    const points: Point[] = Array.from({ length: 60 }, (_, i) => ({
      resource: i % 4,
      metric: i % METRICS.length,
      attr: i % 3,
      ms: i * 3_001,
      value: (i * 37) % 101,
    }));
    await send(run, points);
    // As a store from before the pre-aggregate: no views, an empty table, migration 11 not run
    // (nor any after it: migrate runs the versions above the highest applied).
    const store = server().store;
    for (const v of WINDOWS_VIEWS) await store.client.command({ query: `DROP VIEW ${v}` });
    await store.client.command({ query: `TRUNCATE TABLE ${WINDOWS_TABLE}` });
    await store.command(
      sql`ALTER TABLE tailscope_migrations DELETE WHERE version >= 11 SETTINGS mutations_sync = 2`,
    );
    await migrate(store);
    await compare(run, 0, 200_000, 10);
    // Run again (an interrupted migration is run whole again): still the same answer.
    for (const statement of metricWindowsDdl({ database: 'default', cluster: undefined }))
      await store.client.command({ query: statement });
    await compare(run, 0, 200_000, 60);
    // And the views are back: new points reach the pre-aggregate.
    await send(run, [{ resource: 0, metric: 0, attr: 0, ms: 250_000, value: 0.5 }]);
    const rows = await compare(run, 250_000, 260_000, 10);
    expect(rows.filter((r) => r.signal === 'cpu-saturation').map((r) => r.value)).toContain(0.5);
  });
});
