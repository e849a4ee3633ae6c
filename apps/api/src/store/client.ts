import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { createChdbConnection, type ChdbConnection } from 'chdb/connection';
import type { Sql } from './sql';
import { forEngine } from './sql-ctes';
import {
  budgetKindOf,
  budgetSettings,
  queryBudgetFromEnv,
  withinBudget,
  type QueryBudget,
} from './budget';

type ClientConnection = NonNullable<Parameters<typeof createClient>[0]>['connection'];

export interface StoreOptions {
  /** Data directory of the embedded engine (ignored when `url` is set). */
  dataDir: string;
  /** A ClickHouse server; when absent the embedded engine (chDB) is used. */
  url?: string | undefined;
  user?: string | undefined;
  password?: string | undefined;
  database?: string | undefined;
  /** `ON CLUSTER <name>` for DDL, with Replicated engines (server mode only). */
  cluster?: string | undefined;
  /** Limits on every query (default: TAILSCOPE_QUERY_* from the environment, else built in). */
  budget?: QueryBudget | undefined;
}

/**
 * The one handle on ClickHouse: `@clickhouse/client`, over HTTP to a server or over the
 * in-process chDB connection. `embedded` exposes chDB's raw escape hatch for the ingest hot path.
 */
export interface Store {
  readonly client: ClickHouseClient;
  readonly database: string;
  readonly cluster: string | undefined;
  readonly embedded: ChdbConnection | undefined;
  /**
   * The engine computes CTEs marked MATERIALIZE once (sql-ctes.ts): the embedded engine (its
   * ClickHouse has `enable_materialized_cte`); servers run the marks as plain CTEs.
   */
  readonly materializedCtes: boolean;
  readonly description: string;
  /** The limits every query and command here runs with; over them: QueryBudgetError. */
  readonly budget: QueryBudget;
  query<T>(q: Sql): Promise<T[]>;
  command(q: Sql): Promise<void>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export function openStore(opts: StoreOptions): Store {
  let client: ClickHouseClient;
  let embedded: ChdbConnection | undefined;
  let description: string;
  const database = opts.database ?? 'default';
  const budget = opts.budget ?? queryBudgetFromEnv(process.env);
  // The client's defaults, so every call through it (queries, commands, exec, inserts) carries
  // the whole budget: the embedded engine turns settings into session-wide SETs, so a call
  // without them would inherit whatever the last one set.
  const clickhouse_settings = budgetSettings(budget);
  if (opts.url) {
    client = createClient({
      url: opts.url,
      username: opts.user ?? 'default',
      password: opts.password ?? '',
      database,
      clickhouse_settings: { date_time_output_format: 'iso', ...clickhouse_settings },
    });
    description = `ClickHouse server ${new URL(opts.url).host} database ${database}`;
  } else {
    const path = resolve(opts.dataDir, 'clickhouse');
    mkdirSync(path, { recursive: true });
    embedded = createChdbConnection({ path });
    // chdb types the connection against @clickhouse/client-common while @clickhouse/client
    // bundles its own copy of the same declarations; the shapes match, the nominal types do not.
    client = createClient({
      connection: embedded as unknown as NonNullable<ClientConnection>,
      // Not in the client's typed settings yet (ClickHouse 26): the engine computes each
      // CTE marked MATERIALIZE once (sql-ctes.ts).
      clickhouse_settings: {
        ...clickhouse_settings,
        ...({ enable_materialized_cte: 1 } as Record<string, number>),
      },
    });
    description = `embedded ClickHouse (chDB) at ${path}`;
  }
  // Measured on chDB: rows a query had produced before the budget stopped it come back at the
  // head of the next query's answer on the session. One throwaway query takes them, so the
  // next real query answers only its own rows.
  const drain = async <R>(run: () => Promise<R>): Promise<R> => {
    try {
      return await run();
    } catch (err) {
      if (embedded && budgetKindOf(err) !== null)
        await client
          .query({ query: 'SELECT 1', format: 'JSONEachRow' })
          .then((rs) => rs.json())
          .catch(() => undefined);
      throw err;
    }
  };
  return {
    client,
    database,
    cluster: opts.url ? opts.cluster : undefined,
    embedded,
    materializedCtes: embedded !== undefined,
    description,
    budget,
    query<T>(q: Sql): Promise<T[]> {
      return withinBudget(budget, () =>
        drain(async () => {
          const rs = await client.query({
            query: forEngine(q.text, embedded !== undefined),
            query_params: q.params,
            format: 'JSONEachRow',
          });
          return rs.json<T>();
        }),
      );
    },
    command(q: Sql): Promise<void> {
      return withinBudget(budget, () =>
        drain(async () => {
          await client.command({
            query: forEngine(q.text, embedded !== undefined),
            query_params: q.params,
          });
        }),
      );
    },
    async ping(): Promise<boolean> {
      const r = await client.ping();
      return r.success;
    },
    async close(): Promise<void> {
      await client.close();
    },
  };
}
