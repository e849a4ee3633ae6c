import type { ClickHouseSettings } from '@clickhouse/client';
import { ClientGoneError, currentWork, remainingMs, type Work } from './admission';
import { QueryBudgetError, type AnalysisLimits, type QueryBudget } from './budget';

/** What a store call adds to its `@clickhouse/client` call for the request it serves. */
export interface CallOptions {
  clickhouse_settings: ClickHouseSettings;
  abort_signal?: AbortSignal;
}

/**
 * Niceness of an analysis's query threads (ClickHouse's `os_thread_priority`, applied per
 * thread): below ingest's inserts and the cheap answers, which keep 0. Measured on chDB 3.4: the
 * query's threads run at nice 10 while it runs and at 0 for the next query without it.
 */
export const ANALYSIS_NICE = 10;

/**
 * The settings of one call: an analysis's queries run on `threads` engine threads at lower
 * priority and stop at its deadline (arrival + budget: waiting in the admission queue counted);
 * every request's queries stop when its client goes away. Every call carries every one of them:
 * the embedded engine keeps SETs for the session's next query.
 */
export function callOptions(
  work: Work | undefined,
  budget: QueryBudget,
  analysis: AnalysisLimits,
): CallOptions {
  const heavy = work?.workClass === 'analysis';
  const settings: ClickHouseSettings = {
    max_threads: heavy ? analysis.threads : 0,
    os_thread_priority: String(heavy ? ANALYSIS_NICE : 0),
  };
  if (!work) return { clickhouse_settings: settings };
  // A cheap answer's queries keep the whole budget each, as before admission: its wait behind
  // a running query is short, and cutting it would turn a busy second into a 503.
  if (!heavy) return { clickhouse_settings: settings, abort_signal: work.signal };
  const left = remainingMs(work);
  settings.max_execution_time = Math.max(
    1,
    Math.min(budget.timeoutSeconds, Math.ceil(left / 1000)),
  );
  // The deadline also stops the query while still queued in chDB (which runs parameterized
  // queries one at a time): dropped before it starts.
  return {
    clickhouse_settings: settings,
    abort_signal: AbortSignal.any([work.signal, AbortSignal.timeout(Math.max(1, left))]),
  };
}

/**
 * Runs a store call for the current request: not started when its client left or its budget
 * is spent; a failure after either is reported as that (499, 503), not as the engine's error.
 */
export async function guardCall<R>(
  budget: QueryBudget,
  run: (work: Work | undefined) => Promise<R>,
): Promise<R> {
  const work = currentWork();
  const stopped = (): Error | undefined => {
    if (!work) return undefined;
    if (work.signal.aborted) return new ClientGoneError();
    if (work.workClass === 'analysis' && remainingMs(work) <= 0)
      return new QueryBudgetError('time', budget);
    return undefined;
  };
  const before = stopped();
  if (before) throw before;
  try {
    return await run(work);
  } catch (err) {
    throw stopped() ?? err;
  }
}
