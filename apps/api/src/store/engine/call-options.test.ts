import { describe, expect, it } from 'vitest';
import { ClientGoneError, runAsWork, type Work } from './admission';
import { DEFAULT_QUERY_BUDGET, QueryBudgetError } from './budget';
import { callOptions, guardCall } from './call-options';

const limits = { threads: 3, maxQueue: 16 };
const work = (
  workClass: Work['workClass'],
  leftMs: number,
  signal = new AbortController().signal,
) => ({
  workClass,
  signal,
  deadlineMs: Date.now() + leftMs,
});

describe('call options', () => {
  it('runs an analysis on its threads, below ingest, within what is left of its budget', () => {
    const o = callOptions(work('analysis', 4_500), DEFAULT_QUERY_BUDGET, limits);
    expect(o.clickhouse_settings).toMatchObject({ max_threads: 3, os_thread_priority: '10' });
    expect(o.clickhouse_settings.max_execution_time).toBeLessThanOrEqual(5);
    expect(o.abort_signal?.aborted).toBe(false);
  });

  it('resets priority and threads for cheap answers and calls outside any request', () => {
    const cheap = callOptions(work('interactive', 1_000), DEFAULT_QUERY_BUDGET, limits);
    expect(cheap.clickhouse_settings).toEqual({ max_threads: 0, os_thread_priority: '0' });
    const none = callOptions(undefined, DEFAULT_QUERY_BUDGET, limits);
    expect(none).toEqual({ clickhouse_settings: { max_threads: 0, os_thread_priority: '0' } });
  });

  it('starts no call for an analysis past its deadline or a client gone', async () => {
    let calls = 0;
    const count = () => Promise.resolve(++calls);
    const late = runAsWork(work('analysis', -1), () => guardCall(DEFAULT_QUERY_BUDGET, count));
    await expect(late).rejects.toBeInstanceOf(QueryBudgetError);
    const ac = new AbortController();
    ac.abort();
    const gone = runAsWork(work('interactive', 1_000, ac.signal), () =>
      guardCall(DEFAULT_QUERY_BUDGET, count),
    );
    await expect(gone).rejects.toBeInstanceOf(ClientGoneError);
    expect(calls).toBe(0);
    await runAsWork(work('interactive', -1), () => guardCall(DEFAULT_QUERY_BUDGET, count));
    expect(calls).toBe(1);
  });
});
