import type { ClickHouseClient } from '@clickhouse/client';
import { forEngine, MATERIALIZE } from '../sql/ctes';
import type { CallOptions } from './call-options';

/**
 * Steps of a query computed first, as temporary tables: each CTE marked MATERIALIZE (sql/ctes.ts)
 * becomes `CREATE TEMPORARY TABLE` on the query's own session, the query then reads the table,
 * and the tables are dropped after it, whatever happened.
 *
 * Why: ClickHouse resolves a CTE's whole body again at every reference. The calls chain
 * (sql/calls.ts) names `ts_spans` a dozen times (wrapper hops, answers, callers), so planning a
 * query over calls took ~0.8 s on 2 cores before it read a row, even over an empty range, and
 * `AS MATERIALIZED` did not change it (the body is still resolved at each reference). Measured
 * on the `microservices` preset (bench/src, edges over calls, 2 cores under load): an empty range
 * 807 ms -> 119-141 ms, one minute 960-980 ms -> 271-291 ms, ten minutes 1.65-1.79 s -> 0.88-0.90 s,
 * with the same rows.
 */

/** A query split into its steps (temporary tables, in order) and the rest, reading them. */
export interface Staged {
  stages: { table: string; body: string }[];
  main: string;
}

let seq = 0;

/** Where the quoted text, comment or parenthesized group opening at `i` ends (exclusive). */
function skip(text: string, i: number): number {
  const c = text[i];
  if (c === "'" || c === '"' || c === '`') {
    for (let j = i + 1; j < text.length; j++) {
      if (text[j] === '\\') j++;
      else if (text[j] === c) return j + 1;
    }
    return text.length;
  }
  if (c === '-' && text[i + 1] === '-') {
    const end = text.indexOf('\n', i);
    return end < 0 ? text.length : end;
  }
  if (c === '/' && text[i + 1] === '*') {
    const end = text.indexOf('*/', i + 2);
    return end < 0 ? text.length : end + 2;
  }
  return i + 1;
}

/** The index of the `)` closing the `(` at `open`, or -1. */
function closing(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length;) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
    i = skip(text, i);
  }
  return -1;
}

/** A CTE as withCtes writes it: its name at the start of a line, then `AS (` or `AS <mark> (`. */
const CTE = new RegExp(
  `^([A-Za-z_][A-Za-z0-9_]*) AS (?:${MATERIALIZE.replace(/[*/]/g, '\\$&')} )?\\(`,
  'gm',
);
const MARK = new RegExp(
  `\\b([A-Za-z_][A-Za-z0-9_]*) AS ${MATERIALIZE.replace(/[*/]/g, '\\$&')} \\(`,
  'g',
);

/**
 * The steps of `text` (CTEs marked MATERIALIZE) and the query without them, every reference to a
 * step renamed to its table (`_ts_stage_<n>_<name>`, unique in the process). Null when no CTE is
 * marked. The marks are written by withCtes only, so a mark inside a string or comment of the
 * query cannot occur.
 */
export function splitStages(text: string): Staged | null {
  const found: { name: string; start: number; end: number; body: string }[] = [];
  for (const m of text.matchAll(MARK)) {
    const name = m[1] as string;
    const open = m.index + m[0].length - 1;
    const close = closing(text, open);
    if (close < 0) return null;
    found.push({ name, start: m.index, end: close + 1, body: text.slice(open + 1, close) });
  }
  if (found.length === 0) return null;
  // A step may read tables and earlier steps only: one that reads a CTE left in the query
  // cannot run before it (the query then runs whole, its marks as `AS MATERIALIZED`).
  const marked = new Set(found.map((f) => f.name));
  const others = [...text.matchAll(CTE)].map((m) => m[1] as string).filter((n) => !marked.has(n));
  if (others.length > 0) {
    const reads = new RegExp(`\\b(${others.join('|')})\\b`);
    if (found.some((f) => reads.test(f.body))) return null;
  }
  const id = ++seq;
  const tables = new Map(found.map((f) => [f.name, `_ts_stage_${id}_${f.name}`]));
  const names = new RegExp(`\\b(${[...tables.keys()].join('|')})\\b`, 'g');
  const rename = (s: string): string => s.replace(names, (n) => tables.get(n) ?? n);
  // Cut the marked CTEs out of the WITH list, last first so earlier offsets hold: with the
  // comma after (or before, for the last CTE), or with the WITH keyword when none is left.
  let main = text;
  for (const f of [...found].reverse()) {
    const after = /^\s*,\s*/.exec(main.slice(f.end));
    if (after) {
      main = main.slice(0, f.start) + main.slice(f.end + after[0].length);
      continue;
    }
    const before = /,\s*$/.exec(main.slice(0, f.start));
    if (before) {
      main = main.slice(0, before.index) + main.slice(f.end);
      continue;
    }
    const keyword = /\bWITH\s*$/i.exec(main.slice(0, f.start));
    if (!keyword) return null;
    main = main.slice(0, keyword.index) + main.slice(f.end).replace(/^\s*/, '');
  }
  return {
    stages: found.map((f) => ({ table: tables.get(f.name) as string, body: rename(f.body) })),
    main: rename(main),
  };
}

/**
 * Runs `exec` on the query `text` with its steps first as temporary tables of session `on`
 * (`staged`: the embedded engine, with the budget's memory; a server runs the CTEs as written),
 * dropping them after. `exec` gets the options to run the query with.
 */
export async function withStages<R>(
  on: ClickHouseClient,
  text: string,
  params: Record<string, unknown>,
  options: CallOptions,
  staged: { maxMemoryBytes: number } | undefined,
  exec: (text: string, options: CallOptions) => Promise<R>,
): Promise<R> {
  const split = staged ? splitStages(text) : null;
  if (!staged || !split) return exec(forEngine(text, staged !== undefined), options);
  const made: string[] = [];
  try {
    for (const s of split.stages) {
      made.push(s.table);
      await on.command({
        query: `CREATE TEMPORARY TABLE ${s.table} ENGINE = Memory AS ${s.body}`,
        query_params: params,
        ...options,
      });
    }
    // The tables hold their memory while the query runs: it gets what is left of the budget,
    // so the steps and the query together stay within max_memory_usage, as one query did.
    const rs = await on.query({
      query:
        'SELECT toString(sum(total_bytes)) AS held FROM system.tables WHERE is_temporary AND has({stages:Array(String)}, name)',
      query_params: { stages: made },
      format: 'JSONEachRow',
      ...options,
    });
    const held = Number((await rs.json<{ held: string }>())[0]?.held ?? 0);
    const left = Math.max(1 << 20, staged.maxMemoryBytes - held);
    return await exec(split.main, {
      ...options,
      clickhouse_settings: { ...options.clickhouse_settings, max_memory_usage: String(left) },
    });
  } finally {
    // Not cancellable, and with a parameter: chDB runs a parameterized query only after the
    // one before it has finished (an abandoned CREATE included), so the drop finds the table.
    for (const table of made.reverse())
      await on
        .command({
          query: `DROP TEMPORARY TABLE IF EXISTS ${table}`,
          query_params: { one: 1 },
          clickhouse_settings: options.clickhouse_settings,
        })
        .catch(() => undefined);
  }
}
