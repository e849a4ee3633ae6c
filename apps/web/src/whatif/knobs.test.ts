import { describe, expect, it } from 'vitest';
import { POLICY_KINDS, POLICY_SPECS, resolvePolicy } from '@tailscope/analysis';
import {
  fromPosition,
  knobsFor,
  policyOf,
  readPolicyState,
  toPosition,
  writePolicyState,
} from './knobs';

const ctx = { callP50: 10, callP99: 40, callP999: 900, requestP999: 1200 };

describe('what-if knobs', () => {
  it('name only real parameters, and every default state resolves as a valid policy', () => {
    for (const kind of POLICY_KINDS) {
      const knobs = knobsFor(kind, ctx);
      const names = POLICY_SPECS[kind].parameters.map((p) => p.name);
      for (const k of knobs) expect(names).toContain(k.name);
      const state = readPolicyState(new URLSearchParams(`policy=${kind}`), ctx);
      expect(() => resolvePolicy(policyOf(state, knobs))).not.toThrow();
    }
  });

  it('start every knob inside its own range', () => {
    for (const kind of POLICY_KINDS) {
      for (const k of knobsFor(kind, ctx)) {
        expect(k.initial, `${kind}.${k.name}`).toBeGreaterThanOrEqual(k.min);
        expect(k.initial, `${kind}.${k.name}`).toBeLessThanOrEqual(k.max);
      }
    }
  });

  it('sends one hedge delay, the chosen one', () => {
    const knobs = knobsFor('hedge', ctx);
    const s = readPolicyState(
      new URLSearchParams('policy=hedge&by.delay=delayMs&p.delayMs=25'),
      ctx,
    );
    // The other parameters go at the simulator's own defaults, whatever they are today.
    const defaultOf = (name: string) =>
      POLICY_SPECS.hedge.parameters.find((p) => p.name === name)?.default;
    expect(policyOf(s, knobs)).toEqual({
      kind: 'hedge',
      delayMs: 25,
      maxAttempts: defaultOf('maxAttempts'),
      drawWindowMs: defaultOf('drawWindowMs'),
    });
    const def = readPolicyState(new URLSearchParams(''), ctx);
    expect(policyOf(def, knobs)).toMatchObject({ kind: 'hedge', delayPercentile: 95 });
  });

  it('round-trips through the URL, leaving initial values out', () => {
    const knobs = knobsFor('probation', ctx);
    const s = readPolicyState(new URLSearchParams('policy=probation&p.threshold=3.5'), ctx);
    const url = writePolicyState(new URLSearchParams('range=1h'), s, knobs);
    expect(url.toString()).toBe('range=1h&policy=probation&p.threshold=3.5');
    expect(readPolicyState(url, ctx)).toEqual(s);
  });

  it('switches optional parameters on only when present, and clamps out-of-range values', () => {
    const s = readPolicyState(new URLSearchParams('policy=good-enough&p.deadlineMs=99999999'), ctx);
    expect(s.enabled.deadlineMs).toBe(true);
    expect(s.values.deadlineMs).toBe(1440);
    const off = readPolicyState(new URLSearchParams('policy=good-enough'), ctx);
    expect(policyOf(off, knobsFor('good-enough', ctx))).toEqual({
      kind: 'good-enough',
      fraction: 0.95,
    });
  });

  it('maps slider positions monotonically, logarithmically for delays', () => {
    const k = knobsFor('hedge', ctx).find((x) => x.name === 'delayMs');
    if (!k) throw new Error('no delayMs knob');
    expect(fromPosition(k, 0)).toBe(k.min);
    expect(fromPosition(k, 1000)).toBeCloseTo(k.max, 6);
    // Half way on a log slider is the geometric mean.
    expect(fromPosition(k, 500)).toBeCloseTo(Math.sqrt(k.min * k.max), 0);
    let prev = -Infinity;
    for (let p = 0; p <= 1000; p += 50) {
      const v = fromPosition(k, p);
      expect(v).toBeGreaterThanOrEqual(prev);
      prev = v;
    }
    expect(toPosition(k, fromPosition(k, 700))).toBeCloseTo(700, -1);
  });
});
