import { createChdbConnection, type ChdbConnection } from 'chdb/connection';

/**
 * A second chDB session on the same data directory, for the cheap answers (a trace, a search).
 *
 * chDB runs every query that has bound parameters one at a time, process-wide (chdb-node chains
 * them: its C API's parameter set/reset is not isolated between sessions), so a trace read sent
 * while an analysis query runs waits for all of it. A query without bound parameters is not
 * chained and runs beside it on its own session. Measured on chDB 3.4 (2 cores): a trace-sized
 * read on a second session answered in 2-170 ms while a 30 s query held the first, and 1,500
 * such reads beside 1,500 bound queries on the first session each got its own values.
 *
 * So this session takes its parameters as session settings (`SET param_<name> = '<text>'`, the
 * same text the HTTP interface takes as `param_<name>`): the SQL still names every value as
 * `{name:Type}` and the engine still parses each by its declared type; nothing is spliced into
 * the query. Its session state (settings, parameters, rows a stopped query left) is its own, so
 * its queries take turns among themselves (client.ts), not with the first session's.
 */
export function openReadSession(path: string): ChdbConnection {
  const inner = createChdbConnection({ path });
  type Params = { query_params?: Record<string, unknown>; clickhouse_settings?: object };
  const moved = <P extends Params>(p: P): P => {
    const { query_params, ...rest } = p;
    if (!query_params || Object.keys(query_params).length === 0) return p;
    const settings: Record<string, unknown> = { ...p.clickhouse_settings };
    for (const [name, value] of Object.entries(query_params))
      settings[`param_${name}`] = settingText(paramText(value));
    return { ...rest, clickhouse_settings: settings } as P;
  };
  // The connection's own methods, each with its parameters moved into settings: the client
  // (@clickhouse/client) calls only these.
  const wrapped = Object.create(inner) as ChdbConnection;
  Object.assign(wrapped, {
    query: (p: Parameters<ChdbConnection['query']>[0]) => inner.query(moved(p)),
    exec: (p: Parameters<ChdbConnection['exec']>[0]) => inner.exec(moved(p)),
    command: (p: Parameters<ChdbConnection['command']>[0]) => inner.command(moved(p)),
    insert: (p: Parameters<ChdbConnection['insert']>[0]) => inner.insert(moved(p)),
    ping: (p: Parameters<ChdbConnection['ping']>[0]) => inner.ping(p),
    close: () => inner.close(),
  });
  return wrapped;
}

const TSV_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  '\0': '\\0',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};
const TSV_SPECIAL = /[\\\0\b\f\n\r\t]/g;

/** A value inside a composite parameter (an array's element): a SQL literal. */
function literal(value: unknown): string {
  if (typeof value === 'string')
    return `'${value.replace(TSV_SPECIAL, (c) => TSV_ESCAPES[c] ?? c).replace(/'/g, "\\'")}'`;
  if (value === null || value === undefined) return 'NULL';
  return paramText(value);
}

/**
 * A parameter's value as the text the engine parses by its declared type (ClickHouse's
 * escaped/TSV rules, as for the HTTP interface's `param_<name>`): strings escaped, arrays as
 * literals. The kinds sql.ts binds: strings, numbers, bigints, booleans, null and arrays.
 */
export function paramText(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'string') return value.replace(TSV_SPECIAL, (c) => TSV_ESCAPES[c] ?? c);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`cannot bind a non-finite number (${value})`);
    if (Number.isInteger(value) && !Number.isSafeInteger(value))
      throw new Error(`cannot bind an integer beyond 2^53 as a number (${value}): use a bigint`);
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map(literal).join(',')}]`;
  throw new Error(`cannot bind a parameter of type ${typeof value} on the read session`);
}

/**
 * The text of a `SET` string literal that reads back as `text`: chdb/connection doubles the
 * quotes of a setting's value but leaves backslashes, which the literal would then consume.
 */
function settingText(text: string): string {
  return text.replace(/\\/g, '\\\\');
}

/**
 * Whether the embedded engine gives trace reads and searches their own session:
 * `TAILSCOPE_READ_SESSION` unset, empty or `1` yes, `0` no; anything else is refused.
 */
export function readSessionFromEnv(env: Readonly<Record<string, string | undefined>>): boolean {
  const raw = env.TAILSCOPE_READ_SESSION;
  if (raw === undefined || raw === '' || raw === '1') return true;
  if (raw === '0') return false;
  throw new Error(`TAILSCOPE_READ_SESSION must be 0 or 1, got ${JSON.stringify(raw)}`);
}
