import { describe, expect, it } from 'vitest';
import type { FanoutOp, StragglerRow } from '../api/contracts';
import { distinctLeaves, topCauses } from './causes';

const op = (parentService: string, leafService = 'kv'): FanoutOp =>
  ({ parentService, parentOperation: 'GET', leafService, leafOperation: 'get' }) as FanoutOp;

const row = (value: string, over: Partial<StragglerRow> = {}): StragglerRow => ({
  dimension: 'host',
  value,
  calls: 1000,
  stragglers: 30,
  trafficShare: 0.1,
  stragglerShare: 0.5,
  riskRatio: 4,
  riskRatioLow: 3,
  riskRatioHigh: 5,
  pValue: 1e-9,
  qValue: 1e-8,
  cause: true,
  p99DropMs: 12,
  ...over,
});

describe('top causes', () => {
  it('asks once per leaf operation: two parents of one leaf get the same answer', () => {
    expect(distinctLeaves([op('a'), op('b'), op('a', 'db')]).map((o) => o.parentService)).toEqual([
      'a',
      'a',
    ]);
  });

  it('lists each cause once, and only causes that explain time', () => {
    const rows = [
      row('h1'),
      row('h0', { stragglers: 0, riskRatio: 2.2 }),
      row('h2', { p99DropMs: 0 }),
      row('h3', { p99DropMs: -3 }),
      row('h4', { cause: false }),
      row('h5', { p99DropMs: 30 }),
    ];
    const causes = topCauses([
      { op: op('a'), rows },
      { op: op('b'), rows },
    ]);
    expect(causes.map((c) => c.value)).toEqual(['h5', 'h1']);
    expect(causes.every((c) => c.op.parentService === 'a')).toBe(true);
  });
});
