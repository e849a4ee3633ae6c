import { describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import {
  FanoutsQuery,
  FanoutsResponse,
  HostsQuery,
  LeavesQuery,
  MAX_NAME_LENGTH,
  StragglersQuery,
  StragglersResponse,
  TIME_MAX_MS,
  TraceParams,
  TraceResponse,
  WhatIfBody,
  WhatIfResponse,
} from './index';

/** Schemas accept the API's answers and refuse out-of-bound input (issue 15's cases). */

const q = { p50: 1, p95: 2, p99: 3, p999: 4 };
const fanouts = {
  from: 0,
  to: 1000,
  fanouts: [
    {
      parentService: 'frontend',
      parentOperation: 'search',
      leafService: 'kv',
      leafOperation: 'get',
      requests: 800,
      width: { p50: 10, max: 12 },
      table1: { oneLeaf: q, p95Leaves: q, allLeaves: q, slowest5pctShareOfP99: 0.2 },
      amplification: {
        thresholdMs: 9.5,
        observedTailProbability: 0.08,
        predictedTailProbability: 0.09,
        verdict: 'independent',
        fanouts: 800,
        tailFanouts: 64,
        observedLow: 0.06,
        observedHigh: 0.1,
        singleCallCdf: 0.99,
      },
      curve: [
        { width: 1, predicted: 0.01 },
        { width: 10, observed: 0.08, predicted: 0.09, fanouts: 700 },
      ],
    },
  ],
};

describe('contracts', () => {
  it('accepts the API answers', () => {
    expect(Value.Check(FanoutsResponse, fanouts)).toBe(true);
    expect(
      Value.Check(StragglersResponse, {
        from: 0,
        to: 1,
        tailThresholdMs: null,
        tailFanouts: 0,
        fanouts: 0,
        calls: 0,
        sampled: false,
        omittedRows: 0,
        rows: [
          {
            dimension: 'host',
            value: 'kv-3',
            calls: 10,
            stragglers: 2,
            trafficShare: 0.1,
            stragglerShare: 0.5,
            riskRatio: null,
            riskRatioLow: null,
            riskRatioHigh: null,
            pValue: 1,
            qValue: 1,
            cause: false,
            p99DropMs: null,
            explainedBy: null,
          },
        ],
      }),
    ).toBe(true);
    const estimate = { value: 1, low: 0.5, high: 2 };
    expect(
      Value.Check(WhatIfResponse, {
        requests: 10,
        baseline: { p50: 1, p90: 2, p99: 3, p999: 4 },
        whatIf: { p50: estimate, p90: estimate, p99: estimate, p999: estimate },
        extraLoad: 0.05,
        completeness: { callsAnswered: 0.9, requestsComplete: 0, lost: 0.1 },
        notes: [],
      }),
    ).toBe(true);
    const span = {
      traceId: 'a'.repeat(32),
      spanId: 'b'.repeat(16),
      parentSpanId: '',
      traceState: '',
      name: 'get',
      kind: 'server',
      service: 'kv',
      startTimeUnixNano: '1700000000000000000',
      durationNs: 1e6,
      attributes: { 'http.status_code': 200, ok: true, tags: ['a'] },
      resource: { 'host.name': 'kv-1' },
      scope: { name: '', version: '' },
      events: [],
      links: [],
      status: { code: 'ok', message: '' },
    };
    expect(
      Value.Check(TraceResponse, {
        traceId: span.traceId,
        criticalPath: [{ spanId: span.spanId, selfMs: 1.5 }],
        spans: [span],
        truncated: false,
        totalSpans: 1,
      }),
    ).toBe(true);
  });

  it('refuses answers that drift from the contract', () => {
    const f = fanouts.fanouts[0];
    const drifted = {
      ...fanouts,
      fanouts: [{ ...f, amplification: { ...f?.amplification, verdict: 'maybe' } }],
    };
    expect(Value.Check(FanoutsResponse, drifted)).toBe(false);
    const estimate = { value: 1, low: 0.5, high: 2 };
    expect(
      Value.Check(WhatIfResponse, {
        requests: 1,
        baseline: { p50: 1, p90: 2, p99: 3, p999: 4 },
        whatIf: { p50: estimate, p90: estimate, p99: estimate, p999: estimate },
        extraLoad: 0,
        completeness: 0.9, // the report's old copy said a number; the API sends an object
        notes: [],
      }),
    ).toBe(false);
  });

  it.each([
    [FanoutsQuery, { thresholdMs: 1e308 }],
    [FanoutsQuery, { thresholdMs: Infinity }],
    [FanoutsQuery, { thresholdMs: -1 }],
    [FanoutsQuery, { seed: 2 ** 32 }],
    [FanoutsQuery, { leafService: 'x'.repeat(MAX_NAME_LENGTH + 1) }],
    [FanoutsQuery, { from: '2'.repeat(41) }],
    [StragglersQuery, { leafService: 'kv', leafOperation: 'get', maxFanouts: Infinity }],
    [StragglersQuery, { leafService: 'kv', leafOperation: 'get', tailQuantile: 1 }],
    [StragglersQuery, { leafService: '', leafOperation: 'get' }],
    [LeavesQuery, { leafService: 'kv', leafOperation: 'get', maxFanouts: 1e308 }],
    [LeavesQuery, { leafService: 'kv', leafOperation: 'get', precision: 'f16' }],
    [HostsQuery, { leafService: 'kv', leafOperation: 'get', windowSeconds: 5e-324 }],
    [HostsQuery, { leafService: 'kv', leafOperation: 'get', minCalls: Infinity }],
    [TraceParams, { traceId: 'xyz' }],
    [TraceParams, { traceId: 'g'.repeat(32) }],
  ])('refuses out-of-bound input %#', (schema, value) => {
    expect(Value.Check(schema, value)).toBe(false);
  });

  const body = (policy: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    leafService: 'kv',
    leafOperation: 'get',
    policy,
    ...extra,
  });
  it.each([
    body({ kind: 'probation', intervalSeconds: 5e-324 }),
    body({ kind: 'probation', intervalSeconds: 1e-5 }),
    body({ kind: 'probation', windowSeconds: 1e308 }),
    body({ kind: 'probation', holdSeconds: 1e308 }),
    body({ kind: 'hedge', delayMs: Infinity }),
    body({ kind: 'hedge', delay: 5 }),
    body({ kind: 'retry' }),
    body({ kind: 'hedge' }, { from: -1 }),
    body({ kind: 'hedge' }, { to: TIME_MAX_MS + 1 }),
    body({ kind: 'hedge' }, { from: 'x'.repeat(41) }),
    body({ kind: 'hedge' }, { seed: 1.5 }),
  ])('refuses an out-of-bound what-if body %#', (value) => {
    expect(Value.Check(WhatIfBody, value)).toBe(false);
  });

  it('accepts in-bound input', () => {
    expect(
      Value.Check(FanoutsQuery, { from: '0', to: '2200-01-01', thresholdMs: 5, seed: 1 }),
    ).toBe(true);
    expect(
      Value.Check(HostsQuery, { leafService: 'kv', leafOperation: 'get', windowSeconds: 0.001 }),
    ).toBe(true);
    expect(Value.Check(TraceParams, { traceId: 'A'.repeat(32) })).toBe(true);
    expect(
      Value.Check(
        WhatIfBody,
        body(
          { kind: 'probation', intervalSeconds: 0.001, windowSeconds: 86_400 },
          { from: 0, to: TIME_MAX_MS },
        ),
      ),
    ).toBe(true);
  });
});
