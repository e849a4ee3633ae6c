import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../src/store';
import { edgesSql } from '../src/store/edges/sql';
import { fanoutOperationsSql } from '../src/store/fanouts/queries';
import { uncovered } from '../src/store/fanouts/stored';
import { forEngine, withCtes } from '../src/store/sql/ctes';
import { raw, sql, type Sql } from '../src/store/sql/template';
import { withStages } from '../src/store/engine/stages';
import { insertSpans, mixedSpans, openTempStore, T0_NS } from './analysis-support';

/**
 * The embedded engine runs the marked steps of a query (the calls chain's `ts_spans` and
 * `ts_wrappers`) as temporary tables first (engine/stages.ts). Against the same query run whole
 * (marks as `AS MATERIALIZED`, as before), on mixed fan-outs: the same rows; no table is left
 * on the session after an answer, a failure or a query abandoned mid-way; and the steps' tables
 * and the query share one memory budget, as the single query did.
 */

const SCOPE = { fromNs: T0_NS, toNs: T0_NS + 800n * 40_000_000n };

describe('query steps as temporary tables', () => {
  let store: Store;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ store, close } = await openTempStore('stages'));
    await insertSpans(store, mixedSpans(5, 800));
  });
  afterAll(async () => {
    await close();
  });

  /** The query run whole on the same session, its marks as `AS MATERIALIZED`. */
  const whole = async (q: Sql): Promise<unknown[]> => {
    const rs = await store.client.query({
      query: forEngine(q.text, true),
      query_params: store.params(q),
      format: 'JSONEachRow',
    });
    return rs.json();
  };
  const leftTables = async (): Promise<number> => {
    const [r] = await store.query<{ n: string }>(
      sql`SELECT toString(count()) AS n FROM system.tables WHERE is_temporary AND startsWith(name, '_ts_stage_')`,
    );
    return Number(r?.n);
  };

  it('answers as the whole query does, over calls, edges and fan-outs', async () => {
    const queries = [edgesSql(SCOPE), fanoutOperationsSql(SCOPE, uncovered(SCOPE), { seed: 7 })];
    for (const q of queries) {
      const staged = await store.query(q);
      expect(staged.length).toBeGreaterThan(0);
      expect(staged).toEqual(await whole(q));
    }
    expect(await leftTables()).toBe(0);
  });

  it('drops the tables made when a later step fails', async () => {
    const q = withCtes(
      [
        { name: 'good', body: raw('\n  SELECT number AS x FROM numbers(10)'), materialize: true },
        { name: 'bad', body: raw('\n  SELECT nosuchcolumn FROM good'), materialize: true },
      ],
      raw('SELECT count() FROM bad'),
    );
    await expect(store.query(q)).rejects.toThrow(/nosuchcolumn/);
    expect(await leftTables()).toBe(0);
  });

  it('drops them when the query is abandoned while its steps run', async () => {
    const q = edgesSql(SCOPE);
    for (const afterMs of [0, 5, 20, 60]) {
      const abort = new AbortController();
      setTimeout(() => {
        abort.abort();
      }, afterMs);
      await withStages(
        store.client,
        q.text,
        store.params(q),
        { clickhouse_settings: {}, abort_signal: abort.signal },
        store.staging,
        async (text) => {
          const rs = await store.client.query({
            query: text,
            query_params: store.params(q),
            format: 'JSONEachRow',
            abort_signal: abort.signal,
          });
          return rs.json();
        },
      ).catch(() => undefined);
      // The session answers after it, with nothing left behind.
      expect(await store.query(sql`SELECT ${1} AS one`)).toEqual([{ one: 1 }]);
      expect(await leftTables()).toBe(0);
    }
  });

  it('gives the query the memory budget its steps left', async () => {
    const budget = 256 * 2 ** 20;
    const run = (q: Sql): Promise<unknown[]> =>
      withStages(
        store.client,
        q.text,
        {},
        { clickhouse_settings: { max_memory_usage: String(budget) } },
        { maxMemoryBytes: budget },
        async (text, opts) => {
          const rs = await store.client.query({ query: text, format: 'JSONEachRow', ...opts });
          return rs.json();
        },
      );
    // A step holding ~200 MB (25M UInt64), and a query needing ~100 MB of its own: alone it
    // fits the 256 MiB budget, after the step it does not.
    const step = {
      name: 'held',
      body: raw('\n  SELECT number FROM numbers(25000000)'),
      materialize: true,
    };
    const heavy = 'SELECT length(groupArray(number)) AS n FROM numbers(6000000)';
    expect(await run(raw(heavy))).toEqual([{ n: 6_000_000 }]);
    expect(await run(withCtes([step], raw('SELECT toString(count()) AS n FROM held')))).toEqual([
      { n: '25000000' },
    ]);
    await expect(
      run(withCtes([step], raw(`${heavy} WHERE number NOT IN (SELECT 1 FROM held)`))),
    ).rejects.toThrow(/memory/i);
    expect(await leftTables()).toBe(0);
  });
});
