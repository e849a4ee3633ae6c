import { availableParallelism } from 'node:os';
import { HttpError } from '../../foundation';

/**
 * The query budget: limits ClickHouse enforces on every query Tailscope runs, so no single
 * request can hang the store or exhaust the process (the embedded engine runs in-process).
 */
export interface QueryBudget {
  /** `max_execution_time`: a query running longer is cancelled, seconds. */
  timeoutSeconds: number;
  /** `max_memory_usage`: a query needing more is cancelled, bytes. */
  maxMemoryBytes: number;
  /** Spans one trace read returns at most (earliest first; the answer says it was cut). */
  maxTraceSpans: number;
  /** Attributes per map (span, resource, event, link) one trace read returns at most. */
  maxSpanAttributes: number;
}

export const DEFAULT_QUERY_BUDGET: QueryBudget = {
  timeoutSeconds: 30,
  maxMemoryBytes: 2 * 1024 ** 3,
  maxTraceSpans: 10_000,
  maxSpanAttributes: 1_000,
};

const BUDGET_ENV = {
  timeoutSeconds: 'TAILSCOPE_QUERY_TIMEOUT_SECONDS',
  maxMemoryBytes: 'TAILSCOPE_QUERY_MAX_MEMORY_BYTES',
  maxTraceSpans: 'TAILSCOPE_TRACE_MAX_SPANS',
  maxSpanAttributes: 'TAILSCOPE_TRACE_MAX_ATTRIBUTES',
} as const;

function positive(name: string, raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || n > max)
    throw new Error(`${name} must be a number in (0, ${max}], got ${JSON.stringify(raw)}`);
  return n;
}

/** The budget from TAILSCOPE_QUERY_* variables (unset: the defaults); throws naming a bad one. */
export function queryBudgetFromEnv(env: Readonly<Record<string, string | undefined>>): QueryBudget {
  const read = (key: keyof QueryBudget, max: number): number =>
    positive(BUDGET_ENV[key], env[BUDGET_ENV[key]], DEFAULT_QUERY_BUDGET[key], max);
  return {
    timeoutSeconds: read('timeoutSeconds', 86_400),
    maxMemoryBytes: Math.floor(read('maxMemoryBytes', 2 ** 50)),
    maxTraceSpans: Math.max(1, Math.floor(read('maxTraceSpans', 10_000_000))),
    maxSpanAttributes: Math.max(1, Math.floor(read('maxSpanAttributes', 10_000_000))),
  };
}

/**
 * How much of the machine analyses take (issue 24): worker threads, and ClickHouse's
 * `max_threads` for an analysis's queries; analyses beyond `threads` wait (at most `maxQueue`
 * of them, then 503). Default: leave one core to ingest.
 */
export interface AnalysisLimits {
  /** TAILSCOPE_ANALYSIS_THREADS: analyses running at once, worker threads, query threads. */
  threads: number;
  /** TAILSCOPE_ANALYSIS_QUEUE: analyses waiting for a slot at most. */
  maxQueue: number;
}

export const ANALYSIS_ENV = {
  threads: 'TAILSCOPE_ANALYSIS_THREADS',
  maxQueue: 'TAILSCOPE_ANALYSIS_QUEUE',
} as const;

/** Every core but one (the one left to ingest), at least one. */
export function defaultAnalysisThreads(cores = availableParallelism()): number {
  return Math.max(1, cores - 1);
}

function count(name: string, raw: string | undefined, fallback: number, min: number, max: number) {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(
      `${name} must be an integer between ${min} and ${max}, got ${JSON.stringify(raw)}`,
    );
  return n;
}

/** The analysis limits from TAILSCOPE_ANALYSIS_* (unset: the defaults); throws naming a bad one. */
export function analysisLimitsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): AnalysisLimits {
  return {
    threads: count(
      ANALYSIS_ENV.threads,
      env[ANALYSIS_ENV.threads],
      defaultAnalysisThreads(),
      1,
      256,
    ),
    maxQueue: count(ANALYSIS_ENV.maxQueue, env[ANALYSIS_ENV.maxQueue], 16, 0, 10_000),
  };
}

/**
 * The ClickHouse settings of a budget. Sent with every query: the embedded engine applies
 * `clickhouse_settings` as session-wide SETs (measured: a setting given to one query stays for
 * the next), so every query must carry the whole budget, not only the ones that want it.
 */
export function budgetSettings(b: QueryBudget): Record<string, string> {
  return {
    max_execution_time: String(b.timeoutSeconds),
    timeout_overflow_mode: 'throw',
    max_memory_usage: String(b.maxMemoryBytes),
  };
}

export type BudgetKind = 'time' | 'memory';

/**
 * A query (or an analysis) stopped by the budget: 503 for time (it may pass when the machine
 * is less busy), 413 for memory (the request asks for too much: narrow the range). Not a 500:
 * nothing is broken, and the message names the limit and the setting that raises it.
 */
export class QueryBudgetError extends HttpError {
  constructor(
    readonly kind: BudgetKind,
    budget: QueryBudget,
  ) {
    super(
      kind === 'time' ? 503 : 413,
      kind === 'time'
        ? `query budget exceeded: the request ran longer than ${budget.timeoutSeconds} s, its wait for an analysis slot included (${BUDGET_ENV.timeoutSeconds}); narrow the time range, retry when fewer analyses run, or raise the budget`
        : `query budget exceeded: the request needed more than ${budget.maxMemoryBytes} bytes of memory (${BUDGET_ENV.maxMemoryBytes}); narrow the time range or raise the budget`,
    );
    this.name = 'QueryBudgetError';
  }
}

const TIME_CODES = new Set(['159', '160', 'TIMEOUT_EXCEEDED', 'TOO_SLOW']);
const MEMORY_CODES = new Set(['241', 'MEMORY_LIMIT_EXCEEDED']);

/** Which budget a ClickHouse error reports as exceeded, or null for any other error. */
export function budgetKindOf(err: unknown): BudgetKind | null {
  if (typeof err !== 'object' || err === null) return null;
  const e = err as { code?: unknown; type?: unknown; clickhouseCode?: unknown; message?: unknown };
  const tags = [e.code, e.type, e.clickhouseCode].map((v) =>
    typeof v === 'string' || typeof v === 'number' ? String(v) : '',
  );
  if (tags.some((t) => TIME_CODES.has(t))) return 'time';
  if (tags.some((t) => MEMORY_CODES.has(t))) return 'memory';
  const message = typeof e.message === 'string' ? e.message : '';
  if (/TIMEOUT_EXCEEDED|Timeout exceeded: elapsed/.test(message)) return 'time';
  if (/MEMORY_LIMIT_EXCEEDED|Memory limit \(for query\) exceeded/.test(message)) return 'memory';
  return null;
}

/** Runs a store call, turning a budget error into QueryBudgetError (others pass through). */
export async function withinBudget<T>(budget: QueryBudget, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const kind = budgetKindOf(err);
    if (kind !== null) throw new QueryBudgetError(kind, budget);
    throw err;
  }
}
