/**
 * The one spelling of DDL, used by every migration (schema.ts MIGRATIONS): the identifier check,
 * database-qualified names, the `ON CLUSTER` clause and engine names. Cluster mode (server only)
 * adds `ON CLUSTER <name>` to each statement and uses the Replicated engine of each kind, with
 * the server's default ZooKeeper path and replica macros.
 *
 * DDL is SQL text rather than the `sql` tag: table and database names cannot be bound as
 * parameters in CREATE statements, so every name passes `checkIdent` instead.
 */

/** What DDL depends on: where the tables live and whether they are replicated. */
export interface DdlContext {
  database: string;
  cluster: string | undefined;
  /** The spans table (TAILSCOPE_TRACES_TABLE); default `otel_traces`. */
  tracesTable?: string | undefined;
  /**
   * The start of the newest span stored, epoch ns, when a migration needs it (Migration.measure):
   * the boundary of the narrow span copy (traces/trace-spans.ts). Undefined: no span stored.
   */
  spansEndNs?: bigint | undefined;
  /** Whether the spans table is a MergeTree of this server (migration 14 measures it). */
  tracesMergeTree?: boolean | undefined;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The name itself when it is a plain ClickHouse identifier; throws otherwise. */
export function checkIdent(name: string): string {
  if (!IDENT.test(name)) throw new Error(`invalid ClickHouse identifier: ${JSON.stringify(name)}`);
  return name;
}

/** `database.table`, both checked. */
export function qualified(ctx: DdlContext, table: string): string {
  return `${checkIdent(ctx.database)}.${checkIdent(table)}`;
}

/** ` ON CLUSTER <name>` in cluster mode, '' otherwise. */
export function onCluster(ctx: DdlContext): string {
  return ctx.cluster ? ` ON CLUSTER ${checkIdent(ctx.cluster)}` : '';
}

/** `CREATE TABLE IF NOT EXISTS db.table [ON CLUSTER c]`. */
export function createTable(ctx: DdlContext, table: string): string {
  return `CREATE TABLE IF NOT EXISTS ${qualified(ctx, table)}${onCluster(ctx)}`;
}

export type EngineKind = 'MergeTree' | 'AggregatingMergeTree' | 'ReplacingMergeTree';

/**
 * `MergeTree()`, `ReplacingMergeTree(version)`, ...; in cluster mode `ReplicatedMergeTree`,
 * `ReplicatedReplacingMergeTree(version)` (engine arguments only, the path and replica name
 * come from the server's defaults).
 */
export function engine(ctx: DdlContext, kind: EngineKind, args = ''): string {
  if (!ctx.cluster) return `${kind}(${args})`;
  return args ? `Replicated${kind}(${args})` : `Replicated${kind}`;
}
