import { describe, expect, it } from 'vitest';
import { attributeStragglers } from './attribution';
import { causeFanouts } from './fixtures';
import { buildLeafCalls } from './leaf-calls-builder';

describe('straggler attribution', () => {
  const calls = causeFanouts({
    fanouts: 3000,
    width: 30,
    hosts: 20,
    seed: 4,
    sickHost: 7,
    sickExtraMs: 40,
    sickProbability: 0.1,
  });
  const dims = ['host', 'sharing_mode', 'background', 'attr:zone', 'attr:rack'] as const;
  const result = attributeStragglers(calls, { dimensions: dims, seed: 3 });
  const row = (dimension: string, value: string) => {
    const r = result.rows.find((x) => x.dimension === dimension && x.value === value);
    if (!r) throw new Error(`no row ${dimension}=${value}`);
    return r;
  };

  it('finds the sick host, and not the decoy attribute', () => {
    const sick = row('host', 'host-7');
    expect(sick.cause).toBe(true);
    expect(sick.riskRatio).toBeGreaterThan(5);
    expect(sick.riskRatioLow).toBeGreaterThan(1);
    expect(sick.stragglerShare).toBeGreaterThan(0.5);
    expect(sick.p99DropMs).toBeGreaterThan(10);
    for (const v of ['a', 'b']) {
      const z = row('attr:zone', v);
      expect(z.cause).toBe(false);
      // Replacing a decoy's calls with draws from the rest hardly moves the p99.
      expect(Math.abs(z.p99DropMs ?? 0)).toBeLessThan(sick.p99DropMs ?? 0);
    }
    const healthy = result.rows.filter((r) => r.dimension === 'host' && r.value !== 'host-7');
    expect(healthy.every((r) => !r.cause)).toBe(true);
  });

  it('says which stronger cause explains a confounded one (rack r3 holds the sick host)', () => {
    const rack = row('attr:rack', 'r3');
    const sick = row('host', 'host-7');
    expect(rack.cause).toBe(true);
    expect(rack.explainedBy).toBe('host=host-7');
    // The host is nested in the rack: without rack r3 it has no calls, so nothing explains it.
    expect(sick.explainedBy).toBeNull();
    expect(result.rows.filter((r) => !r.cause).every((r) => r.explainedBy === null)).toBe(true);
  });

  it('counts every call and every tail fan-out once per dimension', () => {
    expect(result.tailFanouts).toBeGreaterThan(0);
    expect(result.fanouts).toBe(3000);
    for (const d of dims) {
      const rows = result.rows.filter((r) => r.dimension === d);
      expect(rows.reduce((s, r) => s + r.calls, 0)).toBe(result.calls);
      expect(rows.reduce((s, r) => s + r.stragglers, 0)).toBe(result.tailFanouts);
      expect(rows.reduce((s, r) => s + r.trafficShare, 0)).toBeCloseTo(1, 12);
    }
    // background has one value covering every call: no "rest", no ratio, no drop.
    const bg = row('background', 'none');
    expect(bg.riskRatio).toBeNull();
    expect(bg.pValue).toBe(1);
    expect(bg.p99DropMs).toBeNull();
  });

  it('is reproducible, and a value’s p99 drop does not depend on the other dimensions asked', () => {
    const again = attributeStragglers(calls, { dimensions: ['attr:rack', 'host'], seed: 3 });
    expect(again.rows.find((r) => r.value === 'host-7')?.p99DropMs).toBe(
      row('host', 'host-7').p99DropMs,
    );
    const other = attributeStragglers(calls, { dimensions: ['host'], seed: 4 });
    expect(other.rows.find((r) => r.value === 'host-7')?.p99DropMs).not.toBe(
      row('host', 'host-7').p99DropMs,
    );
  });

  it('orders each dimension by p-value and keeps q >= p (BH over the whole family)', () => {
    for (const d of dims) {
      const p = result.rows.filter((r) => r.dimension === d).map((r) => r.pValue);
      expect(p).toEqual([...p].sort((a, b) => a - b));
    }
    for (const r of result.rows) expect(r.qValue).toBeGreaterThanOrEqual(r.pValue);
    const limited = attributeStragglers(calls, { dimensions: ['host'], maxValuesPerDimension: 3 });
    expect(limited.rows).toHaveLength(3);
    expect(limited.omittedRows).toBe(17);
  });

  it('uses an explicit threshold and handles no data', () => {
    const strict = attributeStragglers(calls, { dimensions: ['host'], thresholdMs: 1e9 });
    expect(strict.tailFanouts).toBe(0);
    expect(strict.rows.every((r) => r.stragglers === 0 && !r.cause && r.pValue === 1)).toBe(true);
    const empty = attributeStragglers(buildLeafCalls([]), { dimensions: ['host'] });
    expect(empty.rows).toEqual([]);
    expect(empty.tailThresholdMs).toBeNaN();
  });
});
