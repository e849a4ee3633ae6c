import { describe, expect, it } from 'vitest';
import { simulateWhatIf } from '../fanout/simulate';
import { leafCallsFromRows, synthesizeLeafCalls } from '../fanout/synthetic';
import { resolvePolicy } from './resolve-policy';
import { WhatIfPolicyError } from './policy';

// 2,000 fan-outs of width 20 over 10 hosts; host 3 is 10x slower all the time.
const calls = synthesizeLeafCalls({
  fanouts: 2000,
  width: 20,
  hosts: 10,
  seed: 5,
  fanoutsPerSecond: 100,
  latencyMs: (u, h) => (1 + 4 * -Math.log(1 - u())) * (h === 3 ? 10 : 1),
});

describe('avoid-hosts', () => {
  it('moves the slow host its calls elsewhere; reports capacity removed and load added', () => {
    const r = simulateWhatIf(calls, { kind: 'avoid-hosts', hosts: ['host-3'] }, { seed: 1 });
    expect(r.applicable).toBe(true);
    expect(r.whatIf.p99.value).toBeLessThan(0.5 * r.baseline.p99);
    expect(r.avoidHosts?.hosts).toEqual(['host-3']);
    expect(r.avoidHosts?.capacityRemoved).toBeCloseTo(0.1, 10);
    // About a tenth of the calls move onto the other nine hosts: each takes ~1/9 more.
    expect(r.avoidHosts?.loadAdded).toBeGreaterThan(0.09);
    expect(r.avoidHosts?.loadAdded).toBeLessThan(0.13);
  });

  it('with no hosts named, avoids the slowest host by p99', () => {
    const r = simulateWhatIf(calls, { kind: 'avoid-hosts' }, { seed: 1 });
    expect(r.avoidHosts?.hosts).toEqual(['host-3']);
  });

  it('does not apply when the callee has one instance', () => {
    const one = leafCallsFromRows(
      [0, 100],
      [[{ durationMs: 5, host: 0 }], [{ durationMs: 9, host: 0 }]],
      1,
    );
    const r = simulateWhatIf(one, { kind: 'avoid-hosts', hosts: ['host-0'] });
    expect(r.applicable).toBe(false);
    expect(r.reason).toMatch(/one instance \(host-0\)/);
  });
});

describe('pool on recorded fan-outs', () => {
  const rows = leafCallsFromRows(
    [0],
    [
      [
        { durationMs: 4, host: 0 },
        { durationMs: 3, host: 1 },
        { durationMs: 2, host: 2 },
      ],
    ],
    3,
  );
  it('schedules calls in recorded order on k workers', () => {
    expect(simulateWhatIf(rows, { kind: 'pool', workers: 1 }).whatIf.p50.value).toBe(9);
    // 2 workers: 4 | 3 then 2 -> 5.
    expect(simulateWhatIf(rows, { kind: 'pool', workers: 2 }).whatIf.p50.value).toBe(5);
    expect(simulateWhatIf(rows, { kind: 'pool', workers: 'unbounded' }).whatIf.p50.value).toBe(4);
    expect(simulateWhatIf(rows, { kind: 'pool' }).replays).toBe(1);
  });

  it('checks its parameters by the table', () => {
    const field = (p: unknown): string => {
      try {
        resolvePolicy(p);
        return 'ok';
      } catch (e) {
        return e instanceof WhatIfPolicyError ? `${e.field}: ${e.message}` : 'other';
      }
    };
    expect(field({ kind: 'pool', workers: 'lots' })).toBe(
      'policy.workers: policy.workers must be a finite number',
    );
    expect(field({ kind: 'pool', workers: 2.5 })).toBe(
      'policy.workers: policy.workers must be an integer',
    );
    expect(field({ kind: 'pool', workers: 0 })).toBe('policy.workers: policy.workers must be >= 1');
    expect(field({ kind: 'avoid-hosts', hosts: 'host-1' })).toBe(
      'policy.hosts: policy.hosts must be a list of strings',
    );
    expect(field({ kind: 'avoid-hosts', hosts: [''] })).toMatch(
      /^policy.hosts: policy.hosts items must each be a non-empty string/,
    );
    expect(field({ kind: 'avoid-hosts', sharingMode: 'shared-core' })).toBe('ok');
  });
});
