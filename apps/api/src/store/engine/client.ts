import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { createChdbConnection, type ChdbConnection } from 'chdb/connection';
import { withStages } from './stages';
import type { Sql } from '../sql/template';
import { checkIdent } from '../schema/ddl';
import { TRACES_PARAM, TRACE_ID_TS_PARAM } from '../traces/tables';
import {
  analysisLimitsFromEnv,
  budgetKindOf,
  budgetSettings,
  queryBudgetFromEnv,
  withinBudget,
  type AnalysisLimits,
  type QueryBudget,
} from './budget';
import { callOptions, guardCall, type CallOptions } from './call-options';
import { currentWork } from './admission';
import { EngineTurns, yieldWhileBusy } from './turns';
import { SharedReads, paramsKey, registerSharedReads } from './shared-reads';
import { openReadSession, readSessionFromEnv } from './read-session';

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
  /** Analysis threads and queue (default: TAILSCOPE_ANALYSIS_* from the environment, else built in). */
  analysis?: AnalysisLimits | undefined;
  /** The spans table (default `otel_traces`); its trace-id table is `<name>_trace_id_ts`. */
  tracesTable?: string | undefined;
  /** Read-only: the engine refuses writes and DDL on this connection (`readonly = 2`). */
  readOnly?: boolean | undefined;
  /**
   * Embedded only: trace reads and searches on a second engine session (read-session.ts).
   * Default: on, unless TAILSCOPE_READ_SESSION=0 in the environment (readSessionFromEnv; see
   * docs/operations.md).
   */
  readSession?: boolean | undefined;
}

/**
 * Which of the optional tables are there to read. A store Tailscope migrated has all of them; a
 * Collector's table opened read-only may have none of ours (accelerators.ts finds out once).
 */
export interface Accelerators {
  /** `<traces>_trace_id_ts`: narrows one trace's time range before reading it. */
  traceIdTs: boolean;
  /** `tailscope_trace_spans` and its view: the narrow span columns ordered by trace id. */
  traceSpans: boolean;
  /** `tailscope_fanouts` and its chunk records: stored fan-out detection. */
  fanouts: boolean;
  /** `tailscope_typed_attributes`: non-string attribute values. */
  typedAttributes: boolean;
  /** `tailscope_call_buckets` and its chunk records: stored episode series. */
  callBuckets: boolean;
  /** `tailscope_call_bucket_open`: stored episode series of the open chunk, per 10 s bucket. */
  openCallBuckets: boolean;
  /** The open chunk's stored fan-outs and edges per bucket (tailscope_fanout_open). */
  openFanouts: boolean;
  /** `tailscope_metric_windows` and its views: the evidence metrics per 10 s bucket. */
  metricWindows: boolean;
  /** The spans table's projection `tailscope_span_counts`: spans per 10 s of start. */
  spanCounts: boolean;
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
   * The engine computes CTEs marked MATERIALIZE once (sql/ctes.ts): the embedded engine, as
   * temporary tables made before the query (stages.ts) or else as `AS MATERIALIZED` (its
   * ClickHouse has `enable_materialized_cte`); servers run the marks as plain CTEs.
   */
  readonly materializedCtes: boolean;
  /** Set where marked steps run first as temporary tables (stages.ts): the budget they share. */
  readonly staging: { maxMemoryBytes: number } | undefined;
  readonly description: string;
  /** The limits every query and command here runs with; over them: QueryBudgetError. */
  readonly budget: QueryBudget;
  /** Analysis threads and queue: the pool, the admission gate and analysis queries' max_threads. */
  readonly analysis: AnalysisLimits;
  /** The spans table every query reads (`{tracesTable:Identifier}` in SQL text). */
  readonly tracesTable: string;
  readonly readOnly: boolean;
  /** Set once at start (all true after migrate; detected on a read-only store). */
  accelerators: Accelerators;
  query<T>(q: Sql): Promise<T[]>;
  command(q: Sql): Promise<void>;
  /** A query's parameters with the table names bound: for calls made on `client` directly. */
  params(q: Sql): Record<string, unknown>;
  /**
   * Runs a call made on a client directly under the budget and the current request's class,
   * deadline and cancellation (call-options.ts): spread `options` into the call, and make it on
   * `on`, the client of the engine session that serves the request's class (the embedded
   * engine reads the cheap answers on a session of their own; otherwise `on` is `client`).
   */
  call<R>(run: (options: CallOptions, on: ClickHouseClient) => Promise<R>): Promise<R>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export function openStore(opts: StoreOptions): Store {
  let client: ClickHouseClient;
  let embedded: ChdbConnection | undefined;
  let description: string;
  const database = opts.database ?? 'default';
  const budget = opts.budget ?? queryBudgetFromEnv(process.env);
  const analysis = opts.analysis ?? analysisLimitsFromEnv(process.env);
  // The client's defaults, so every call through it (queries, commands, exec, inserts) carries
  // the whole budget: the embedded engine turns settings into session-wide SETs, so a call
  // without them would inherit whatever the last one set.
  // A call outside any request (ingest's inserts, migrations, materializers) runs at normal
  // priority on the engine's threads; the defaults say so because the embedded engine would
  // otherwise keep the last analysis query's SETs.
  const clickhouse_settings = {
    ...budgetSettings(budget),
    max_threads: 0,
    os_thread_priority: '0',
    ...(opts.readOnly ? { readonly: '2' as const } : {}),
  };
  const tracesTable = checkIdent(opts.tracesTable ?? 'otel_traces');
  // The table names are bound as Identifier parameters, so SQL builders stay pure text and
  // a store pointed at another table (TAILSCOPE_TRACES_TABLE) needs no other change.
  const tableParams = (text: string): Record<string, string> => ({
    ...(text.includes(`{${TRACES_PARAM}:`) ? { [TRACES_PARAM]: tracesTable } : {}),
    ...(text.includes(`{${TRACE_ID_TS_PARAM}:`)
      ? { [TRACE_ID_TS_PARAM]: `${tracesTable}_trace_id_ts` }
      : {}),
  });
  let reader: ClickHouseClient | undefined;
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
      // Not in the client's typed settings yet (ClickHouse 26): a CTE marked MATERIALIZE that
      // cannot be a stage of its own (stages.ts) is computed once all the same.
      clickhouse_settings: {
        ...clickhouse_settings,
        ...({ enable_materialized_cte: 1 } as Record<string, number>),
      },
    });
    // The cheap answers' own session on the same data (read-session.ts): they never wait for
    // the analysis query the first session is running (docs/operations.md).
    if (opts.readSession ?? readSessionFromEnv(process.env))
      reader = createClient({
        connection: openReadSession(path) as unknown as NonNullable<ClientConnection>,
        clickhouse_settings: {
          ...clickhouse_settings,
          ...({ enable_materialized_cte: 1 } as Record<string, number>),
        },
      });
    description = `embedded ClickHouse (chDB) at ${path}${database !== 'default' ? ` database ${database}` : ''}`;
  }
  if (opts.readOnly) description += `, read-only on ${tracesTable}`;
  // Measured on chDB: rows a query had produced before the budget stopped it come back at the
  // head of the next query's answer on the session. One throwaway query takes them, so the
  // next real query answers only its own rows.
  // chDB ignores the client's database; `USE` on its session is the same thing, done once before
  // the first query through the store (migrate creates the database before that).
  const used = new Map<ClickHouseClient, Promise<void>>();
  const useDatabase = (on: ClickHouseClient): Promise<void> => {
    if (!embedded || database === 'default') return Promise.resolve();
    let done = used.get(on);
    if (!done) {
      done = on.command({ query: `USE ${checkIdent(database)}` }).then(() => undefined);
      used.set(on, done);
    }
    return done;
  };
  // A query we stopped waiting for (its client left, or its deadline came while it was still
  // queued in chDB) runs on to its end or to max_execution_time, whose rows then lead the next
  // answer on its session: the throwaway queues behind it there (on the first session it takes
  // a parameter, so chDB chains it behind that query; the read session runs one at a time).
  const drain = async <R>(
    on: ClickHouseClient,
    run: () => Promise<R>,
    signal?: AbortSignal,
  ): Promise<R> => {
    await useDatabase(on);
    try {
      return await run();
    } catch (err) {
      if (embedded && (budgetKindOf(err) !== null || signal?.aborted === true))
        await on
          .query({ query: 'SELECT {one:UInt8}', query_params: { one: 1 }, format: 'JSONEachRow' })
          .then((rs) => rs.json())
          .catch(() => undefined);
      throw err;
    }
  };
  // The embedded engine takes one query at a time anyway: ingest's inserts and background work
  // go before analyses (engine-turns.ts). The cheap answers a person waits on (a trace, a
  // search) take turns on their own session. A turn lasts through the drain, so the next query
  // of that session starts after any rows left behind.
  const turns = embedded ? new EngineTurns() : undefined;
  const readTurns = reader ? new EngineTurns() : undefined;
  const call = <R>(run: (o: CallOptions, on: ClickHouseClient) => Promise<R>): Promise<R> =>
    guardCall(budget, async (work) => {
      const options = callOptions(work, budget, analysis);
      const on = reader && work?.workClass === 'interactive' ? reader : client;
      // Background work waits while a person's work runs or waits, between its queries too.
      if (work?.yieldTo) await yieldWhileBusy(work, options.abort_signal);
      const release = await (on === client ? turns : readTurns)?.take(
        work?.workClass !== 'analysis',
        options.abort_signal,
        work?.deferred === true,
      );
      try {
        return await withinBudget(budget, () =>
          drain(on, () => run(options, on), options.abort_signal),
        );
      } finally {
        release?.();
      }
    });
  const reads = new SharedReads();
  // Marked query steps as temporary tables on the embedded engine (stages.ts).
  const staging = embedded ? { maxMemoryBytes: budget.maxMemoryBytes } : undefined;
  const cluster = opts.url ? opts.cluster : undefined;
  const store: Store = {
    client,
    database,
    cluster,
    embedded,
    materializedCtes: embedded !== undefined,
    staging,
    description,
    budget,
    analysis,
    tracesTable,
    readOnly: opts.readOnly ?? false,
    accelerators: {
      traceIdTs: true,
      traceSpans: true,
      fanouts: true,
      typedAttributes: true,
      callBuckets: true,
      openCallBuckets: true,
      openFanouts: true,
      metricWindows: true,
      // Migration 14 adds it except in cluster mode; migrate() then reads whether it did.
      spanCounts: cluster === undefined,
    },
    params: (q: Sql) => ({ ...q.params, ...tableParams(q.text) }),
    query<T>(q: Sql): Promise<T[]> {
      const params = { ...q.params, ...tableParams(q.text) };
      const read = (): Promise<T[]> =>
        call((o, on) =>
          withStages(on, q.text, params, o, staging, async (text, opts) => {
            const rs = await on.query({
              query: text,
              query_params: params,
              format: 'JSONEachRow',
              ...opts,
            });
            return rs.json<T>();
          }),
        );
      // Identical reads in flight share a turn (shared-reads.ts), within one class of turn.
      const work = currentWork();
      const turn = `${work?.workClass ?? 'none'}:${work?.deferred === true ? 'deferred' : ''}`;
      return reads.read(`${turn}\n${q.text}\n${paramsKey(params)}`, read, () =>
        work === undefined ? false : work.signal.aborted || work.deadlineMs <= Date.now(),
      );
    },
    command(q: Sql): Promise<void> {
      const params = { ...q.params, ...tableParams(q.text) };
      return call((o, on) =>
        withStages(on, q.text, params, o, staging, async (text, opts) => {
          await on.command({ query: text, query_params: params, ...opts });
        }),
      );
    },
    call,
    async ping(): Promise<boolean> {
      const r = await client.ping();
      return r.success;
    },
    async close(): Promise<void> {
      await reader?.close();
      await client.close();
    },
  };
  registerSharedReads(store, reads);
  return store;
}
