import { describe, expect, it } from 'vitest';
import {
  budgetKindOf,
  budgetSettings,
  DEFAULT_QUERY_BUDGET,
  QueryBudgetError,
  queryBudgetFromEnv,
} from './budget';

describe('queryBudgetFromEnv', () => {
  it('takes the defaults when nothing is set', () => {
    expect(queryBudgetFromEnv({})).toEqual(DEFAULT_QUERY_BUDGET);
  });

  it('reads every TAILSCOPE_QUERY_* and TAILSCOPE_TRACE_* setting', () => {
    expect(
      queryBudgetFromEnv({
        TAILSCOPE_QUERY_TIMEOUT_SECONDS: '2.5',
        TAILSCOPE_QUERY_MAX_MEMORY_BYTES: '1048576',
        TAILSCOPE_TRACE_MAX_SPANS: '100',
        TAILSCOPE_TRACE_MAX_ATTRIBUTES: '7',
      }),
    ).toEqual({
      timeoutSeconds: 2.5,
      maxMemoryBytes: 1048576,
      maxTraceSpans: 100,
      maxSpanAttributes: 7,
    });
  });

  it.each(['0', '-1', 'abc', 'Infinity', '1e400'])('refuses %s naming the variable', (raw) => {
    expect(() => queryBudgetFromEnv({ TAILSCOPE_QUERY_TIMEOUT_SECONDS: raw })).toThrow(
      /TAILSCOPE_QUERY_TIMEOUT_SECONDS/,
    );
  });
});

describe('budget errors', () => {
  it('sends the whole budget as ClickHouse settings', () => {
    expect(budgetSettings(DEFAULT_QUERY_BUDGET)).toEqual({
      max_execution_time: '30',
      timeout_overflow_mode: 'throw',
      max_memory_usage: String(2 * 1024 ** 3),
    });
  });

  it('recognises the engine errors by code, type or message', () => {
    expect(budgetKindOf({ code: '159', type: 'TIMEOUT_EXCEEDED' })).toBe('time');
    expect(budgetKindOf({ code: 'CHDB_QUERY', clickhouseCode: 241 })).toBe('memory');
    expect(
      budgetKindOf(new Error('Code: 241. DB::Exception: Memory limit (for query) exceeded')),
    ).toBe('memory');
    expect(budgetKindOf(new Error('Code: 62. Syntax error'))).toBeNull();
    expect(budgetKindOf('TIMEOUT_EXCEEDED')).toBeNull();
  });

  it('answers 503 for time and 413 for memory, naming the setting', () => {
    const t = new QueryBudgetError('time', DEFAULT_QUERY_BUDGET);
    expect([t.statusCode, t.message]).toEqual([
      503,
      expect.stringMatching(/TAILSCOPE_QUERY_TIMEOUT_SECONDS/),
    ]);
    const m = new QueryBudgetError('memory', DEFAULT_QUERY_BUDGET);
    expect([m.statusCode, m.message]).toEqual([
      413,
      expect.stringMatching(/TAILSCOPE_QUERY_MAX_MEMORY_BYTES/),
    ]);
  });
});
