import { describe, expect, it } from 'vitest';
import type { CapacityAnswer, WhatIfResponse } from '@tailscope/contracts';
import { summarizeCapacity } from './summary-capacity';
import type { OperationReport } from './types';

const e = (value: number) => ({ value, low: value * 0.9, high: value * 1.1 });

/** A load what-if answer for db at `factor` (utilisation 0.4 x factor; saturated past 1). */
function answer(factor: number, counts?: Record<string, number>): WhatIfResponse {
  const saturated = 0.4 * factor >= 1;
  const capacity: CapacityAnswer = {
    changes: [{ kind: 'load', factor }],
    services: [
      {
        service: 'db',
        model: 'mgk',
        k: 2,
        instances: 2,
        instancesAfter: 2,
        utilisation: 0.4,
        utilisationAfter: 0.4 * factor,
        throughputPerS: 50,
        inFlight: 0.9,
        workMs: 16,
        waitMs: 2,
        fitError: 0.02,
        extrapolated: factor > 1,
        saturated,
        loadOverObserved: factor,
        p99Ms: 60,
        ...(saturated ? {} : { p99After: e(60 * factor) }),
      },
    ],
    saturatesFirst: 'db',
    saturated: saturated ? ['db'] : [],
    extrapolated: factor > 1,
    ...(counts ? { machinesForSlo: { sloMs: 70, counts, steps: 2 } } : {}),
    request: {
      baseline: { p50: 20, p90: 40, p99: 70, p999: 90 },
      ...(saturated
        ? {}
        : { whatIf: { p50: e(20), p90: e(40), p99: e(70 * factor), p999: e(90) } }),
    },
  };
  const p = { p50: 20, p90: 40, p99: 70, p999: 90 };
  return {
    requests: 1000,
    baseline: p,
    whatIf: { p50: e(20), p90: e(40), p99: e(70), p999: e(90) },
    extraLoad: 0,
    notes: [],
    capacity,
  };
}

const op = {
  fanout: { leafService: 'db', leafOperation: 'query' },
  capacity: [
    { factor: 1, sloMs: 70, result: answer(1) },
    { factor: 1.5, sloMs: 70, result: answer(1.5, { db: 3 }) },
    { factor: 3, sloMs: 70, result: answer(3) },
  ],
} as unknown as OperationReport;

describe('summarizeCapacity', () => {
  it('states root and service p99 per factor and the machines for the objective', () => {
    const [c] = summarizeCapacity([op]);
    expect(c?.sloMs).toBe(70);
    expect(c?.root.map((r) => r.p99Ms?.value ?? null)).toEqual([70, 105, null]);
    const db = c?.services[0];
    expect(db?.service).toBe('db');
    // Today: today's count keeps today's p99; 1.5x: the search's 3; 3x: saturated, not found.
    expect(db?.at.map((a) => a.machines)).toEqual([2, 3, null]);
    expect(db?.at.map((a) => a.saturated)).toEqual([false, false, true]);
    expect(db?.at[1]?.p99Ms?.value).toBe(90);
    expect(c?.text).toMatch(
      /1.5x p99 90.0 ms \[81.0 ms–99.0 ms\] \(extrapolated\), 3 machine\(s\) \(today 2\)/,
    );
    expect(c?.text).toMatch(/3x root p99 saturates/);
  });

  it('leaves out operations without capacity runs', () => {
    expect(summarizeCapacity([{ ...op, capacity: [] }])).toEqual([]);
  });
});
