import { describe, expect, it } from 'vitest';
import { simulateWhatIf } from './simulate';
import { synthesizeLeafCalls } from './synthetic';
import { resolvePolicy } from '../policies/resolve-policy';
import { POLICY_KINDS, WhatIfPolicyError, type WhatIfPolicy } from '../policies/policy';

// 2,000 fan-outs of width 20 over 10 hosts; host 3 is 5x slower 5% of the time.
const calls = synthesizeLeafCalls({
  fanouts: 2000,
  width: 20,
  hosts: 10,
  seed: 17,
  fanoutsPerSecond: 100,
  latencyMs: (u, h) => (1 + 4 * -Math.log(1 - u())) * (h === 3 && u() < 0.05 ? 5 : 1),
});

const every: WhatIfPolicy[] = POLICY_KINDS.map((kind) => ({ kind }));

describe('simulateWhatIf', () => {
  it('same seed, same answer; another seed, other draws', () => {
    for (const policy of every) {
      const a = simulateWhatIf(calls, policy, { seed: 42, bootstrapSamples: 300 });
      const b = simulateWhatIf(calls, policy, { seed: 42, bootstrapSamples: 300 });
      expect(b, policy.kind).toEqual(a);
    }
    const a = simulateWhatIf(calls, { kind: 'hedge' }, { seed: 1, bootstrapSamples: 300 });
    const c = simulateWhatIf(calls, { kind: 'hedge' }, { seed: 2, bootstrapSamples: 300 });
    expect(c.whatIf).not.toEqual(a.whatIf);
  });

  it('reports the contract shape for every policy with defaults alone', () => {
    for (const policy of every) {
      const r = simulateWhatIf(calls, policy, { bootstrapSamples: 200 });
      expect(r.requests).toBe(2000);
      for (const k of ['p50', 'p90', 'p99', 'p999'] as const) {
        expect(r.baseline[k]).toBeGreaterThan(0);
        const e = r.whatIf[k];
        expect(e.low).toBeLessThanOrEqual(e.value);
        expect(e.value).toBeLessThanOrEqual(e.high);
      }
      expect(r.extraLoad).toBeGreaterThanOrEqual(0);
      expect(r.notes.length).toBeGreaterThan(0);
      expect(r.probation !== undefined).toBe(policy.kind === 'probation');
      expect(r.completeness !== undefined).toBe(policy.kind === 'good-enough');
    }
  });

  it('baseline is the recorded all-leaves time, and hedging does not make it slower', () => {
    const r = simulateWhatIf(calls, { kind: 'hedge', delayPercentile: 90 }, { seed: 3 });
    expect(r.whatIf.p99.value).toBeLessThan(r.baseline.p99);
    expect(r.whatIf.p50.value).toBeLessThanOrEqual(r.baseline.p50);
    const none = simulateWhatIf(calls, { kind: 'hedge', delayMs: 1e9 }, { seed: 3 });
    expect(none.extraLoad).toBe(0);
    expect(none.whatIf.p99.value).toBeCloseTo(none.baseline.p99, 9);
  });

  it('good-enough gives up completeness for latency; a deadline caps the time', () => {
    const r = simulateWhatIf(calls, { kind: 'good-enough', fraction: 0.9 });
    // 18 of 20 calls answered in every request (continuous latencies: no ties).
    expect(r.completeness?.callsAnswered).toBeCloseTo(0.9, 10);
    expect(r.completeness?.requestsComplete).toBe(0);
    expect(r.whatIf.p99.value).toBeLessThan(r.baseline.p99);
    const d = simulateWhatIf(calls, { kind: 'good-enough', deadlineMs: 10 });
    expect(d.whatIf.p999.value).toBeLessThanOrEqual(10);
    expect(d.completeness?.lost).toBeGreaterThan(0);
  });

  it('canaries add latency: roughly one call latency at the median', () => {
    const one = simulateWhatIf(calls, { kind: 'canary' }, { seed: 5 });
    const two = simulateWhatIf(calls, { kind: 'canary', canaries: 2 }, { seed: 5 });
    expect(one.whatIf.p50.value).toBeGreaterThan(one.baseline.p50);
    expect(two.whatIf.p50.value).toBeGreaterThan(one.whatIf.p50.value);
    expect(one.extraLoad).toBe(0);
  });

  it('tied requests cut the tail; some work is duplicated', () => {
    const r = simulateWhatIf(calls, { kind: 'tied' }, { seed: 8 });
    expect(r.whatIf.p99.value).toBeLessThan(r.baseline.p99);
    expect(r.extraLoad).toBeGreaterThan(0);
    expect(r.extraLoad).toBeLessThan(0.5);
    expect(r.notes.join(' ')).toMatch(/assumed queueing share/);
  });

  it('no fan-outs: zero requests, NaN percentiles, a note', () => {
    const empty = synthesizeLeafCalls({ fanouts: 0, width: 3, hosts: 2 });
    const r = simulateWhatIf(empty, { kind: 'hedge' });
    expect(r.requests).toBe(0);
    expect(r.whatIf.p99.value).toBeNaN();
    expect(r.notes.join(' ')).toMatch(/no fan-outs/);
  });
});

describe('resolvePolicy', () => {
  const field = (p: unknown): string => {
    try {
      resolvePolicy(p);
    } catch (e) {
      if (e instanceof WhatIfPolicyError) return e.field;
      throw e;
    }
    return 'ok';
  };

  it('names the field that is wrong', () => {
    expect(field(null)).toBe('policy');
    expect(field({ kind: 'retry' })).toBe('policy.kind');
    expect(field({})).toBe('policy.kind');
    expect(field({ kind: 'hedge', delayPercentile: 100 })).toBe('policy.delayPercentile');
    expect(field({ kind: 'hedge', delayMs: -1 })).toBe('policy.delayMs');
    expect(field({ kind: 'hedge', delayMs: '5' })).toBe('policy.delayMs');
    expect(field({ kind: 'hedge', maxAttempts: 2.5 })).toBe('policy.maxAttempts');
    expect(field({ kind: 'hedge', delayMs: 5, maxExtraLoad: 0.1 })).toBe('policy.maxExtraLoad');
    expect(field({ kind: 'hedge', delay: 5 })).toBe('policy.delay');
    expect(field({ kind: 'probation', intervalSeconds: 20 })).toBe('policy.intervalSeconds');
    expect(field({ kind: 'probation', threshold: 1 })).toBe('policy.threshold');
    expect(field({ kind: 'canary', canaries: 3 })).toBe('policy.canaries');
    expect(field({ kind: 'good-enough', fraction: 0 })).toBe('policy.fraction');
    expect(field({ kind: 'tied', delayMs: Number.NaN })).toBe('policy.delayMs');
  });

  it('applies defaults so a kind alone works', () => {
    expect(resolvePolicy({ kind: 'hedge' })).toEqual({
      kind: 'hedge',
      delay: { delayPercentile: 95 },
      maxAttempts: 2,
      drawWindowMs: 20,
    });
    expect(resolvePolicy({ kind: 'probation' })).toMatchObject({
      windowSeconds: 10,
      threshold: 2,
      holdSeconds: 30,
      maxEjectedFraction: 0.1,
    });
    expect(resolvePolicy({ kind: 'good-enough' })).toEqual({ kind: 'good-enough', fraction: 0.95 });
    expect(resolvePolicy({ kind: 'good-enough', deadlineMs: 50 })).toEqual({
      kind: 'good-enough',
      fraction: 1,
      deadlineMs: 50,
    });
  });
});
