import { describe, expect, it } from 'vitest';
import { simulateWhatIf } from '../fanout/simulate';
import { synthesizeLeafCalls } from '../fanout/synthetic';
import { binOf, binValue, HISTOGRAM_BINS } from '../estimate/host-window-stats';
import type { LeafCalls } from '../../types';

/** The fan-outs that start at or after `fromMs` (they are consecutive: synthetic data is in order). */
function leafCallsAfter(c: LeafCalls, fromMs: number): LeafCalls {
  const first = c.fanoutStartMs.findIndex((t) => t >= fromMs);
  const a = c.fanoutOffsets[first] ?? 0;
  return {
    ...c,
    fanoutOffsets: c.fanoutOffsets.slice(first).map((o) => o - a),
    fanoutStartMs: c.fanoutStartMs.slice(first),
    traceIds: c.traceIds.slice(first),
    startMs: c.startMs.slice(a),
    durationMs: c.durationMs.slice(a),
    host: c.host.slice(a),
    mode: c.mode.slice(a),
    background: c.background.slice(a),
  };
}

const t0 = 1.7e12;
const base = (u: () => number) => 2 - 3 * Math.log(1 - u());

/**
 * 20 fan-outs/s of width 10 over 10 hosts (20 calls/s per host), from t0 on; latency
 * `latencyMs(u, host, seconds since t0)`.
 */
function fleet(
  latencyMs: (u: () => number, h: number, s: number) => number,
  fanouts = 6000,
  seed = 31,
): LeafCalls {
  return synthesizeLeafCalls({
    fanouts,
    width: 10,
    hosts: 10,
    seed,
    fanoutsPerSecond: 20,
    t0Ms: t0,
    latencyMs: (u, h, t) => latencyMs(u, h, (t - t0) / 1000),
  });
}

/** Latency 2 + Exp(mean 3) ms; hosts in `slow` are 20x slower from 60 s to 120 s. */
const slowMinute = (slow: number[]) => (u: () => number, h: number, s: number) =>
  slow.includes(h) && s >= 60 && s < 120 ? 20 * base(u) : base(u);

// 300 s of traffic.
function run(slow: number[], policy: Record<string, number> = {}) {
  const calls = fleet(slowMinute(slow));
  return simulateWhatIf(
    calls,
    { kind: 'probation', ...policy },
    { seed: 4, bootstrapSamples: 500 },
  );
}

describe('probation', () => {
  it('puts a host that turns slow on probation and brings it back after the hold', () => {
    const r = run([4]);
    // Out about 1 s after it turns slow (61 s); back once its window is clean (130 s) and it
    // stayed healthy for 30 s: about 160 s. Tolerance +-10 s for the shadow samples' timing.
    expect(r.probation?.hosts.map((h) => h.host)).toEqual(['host-4']);
    const seconds = r.probation?.hosts[0]?.seconds ?? 0;
    expect(seconds).toBeGreaterThan(89);
    expect(seconds).toBeLessThan(110);
    expect(r.probation?.capacityRemoved).toBeCloseTo(seconds / (10 * 300), 6);
    // The slow minute dominated the baseline tail; what is left is about one slow second.
    expect(r.whatIf.p99.high).toBeLessThan(r.baseline.p99 / 3);
    // Extra load: 10% of the host's ~20 calls/s as shadow requests, over 60,000 calls.
    expect(r.extraLoad).toBeCloseTo((0.1 * seconds * 20) / 60000, 3);
  });

  it('holdSeconds 0 returns the host as soon as its window is clean', () => {
    const r = run([4], { holdSeconds: 0 });
    const seconds = r.probation?.hosts[0]?.seconds ?? 0;
    expect(seconds).toBeGreaterThan(62);
    expect(seconds).toBeLessThan(75);
  });

  it('caps the hosts out at once (Envoy-style, at least one)', () => {
    const capped = run([2, 7]);
    expect(capped.probation?.hosts).toHaveLength(1);
    const both = run([2, 7], { maxEjectedFraction: 0.2 });
    expect(both.probation?.hosts.map((h) => h.host).sort()).toEqual(['host-2', 'host-7']);
    expect(both.whatIf.p99.value).toBeLessThan(capped.whatIf.p99.value);
  });

  it('minLatencyMs keeps hosts in while they are slow only relative to the fleet', () => {
    // The slow host's p99 is about 20 x 16 ms = 320 ms; a 1 s floor keeps it in.
    expect(run([4], { minLatencyMs: 1000 }).probation?.hosts).toEqual([]);
    expect(run([4], { minLatencyMs: 100 }).probation?.hosts.map((h) => h.host)).toEqual(['host-4']);
  });

  it('a warm-up before the range hands over the probation state the range starts with', () => {
    // Reported from 90 s: host 4 was put out at ~61 s, so the range starts with it out and
    // counts its time from 90 s (back at ~160 s: about 70 s), over 210 s of the range.
    const calls = fleet(slowMinute([4]));
    const r = simulateWhatIf(calls, { kind: 'probation' }, { seed: 4, warmupUntilMs: t0 + 90_000 });
    expect(r.requests).toBe(4200);
    expect(r.allLeavesMs).toHaveLength(4200 * r.replays);
    const seconds = r.probation?.hosts[0]?.seconds ?? 0;
    expect(seconds).toBeGreaterThan(62);
    expect(seconds).toBeLessThan(78);
    expect(r.probation?.capacityRemoved).toBeCloseTo(seconds / (10 * 210), 6);
    // Shadow requests only from 90 s on, over the 42,000 reported calls.
    expect(r.extraLoad).toBeCloseTo((0.1 * seconds * 20) / 42000, 3);
    // A cold start at 90 s judges host 4 only after the range's first interval: that second
    // stays slow, and the extreme tail shows it.
    const cold = simulateWhatIf(
      leafCallsAfter(calls, t0 + 90_000),
      { kind: 'probation' },
      { seed: 4 },
    );
    expect(cold.requests).toBe(4200);
    expect(cold.whatIf.p999.value).toBeGreaterThan(r.whatIf.p999.value);
  });

  it('judges a call when it finishes, not when it was sent', () => {
    // Host 4 answers in 1.5 s from 60 s on. Its first slow answers arrive at 61.5 s, so it is
    // judged slow at the end of the 61-62 s interval and out from 62 s: the fan-outs sent in
    // [60, 62) s that call it (65% of them, 40 per 2 s) stay slow, 26 expected (binomial sd
    // 3; bounds +-2 sd). Counting calls when sent would have it out at 61 s: ~13.
    const calls = fleet((u, h, s) => (h === 4 && s >= 60 ? 1500 : base(u)), 3000, 5);
    const r = simulateWhatIf(
      calls,
      { kind: 'probation', holdSeconds: 1000 },
      { seed: 2, replays: 1 },
    );
    let slow = 0;
    let lastSlowMs = 0;
    r.allLeavesMs.forEach((ms, f) => {
      if (ms < 1000) return;
      slow++;
      lastSlowMs = Math.max(lastSlowMs, (calls.fanoutStartMs[f] ?? 0) - t0);
    });
    expect(slow).toBeGreaterThanOrEqual(20);
    expect(slow).toBeLessThanOrEqual(32);
    expect(lastSlowMs).toBeGreaterThanOrEqual(61_000);
    expect(lastSlowMs).toBeLessThan(62_000);
    expect(r.probation?.hosts.map((h) => h.host)).toEqual(['host-4']);
    expect(r.probation?.hosts[0]?.seconds).toBe(150 - 62);
  });

  it('a healthy fleet stays in', () => {
    const r = run([]);
    expect(r.probation?.hosts).toEqual([]);
    expect(r.probation?.capacityRemoved).toBe(0);
    expect(r.extraLoad).toBe(0);
    // Pooled replays of the same values: equal up to the interpolation's rounding.
    expect(r.whatIf.p99.value).toBeCloseTo(r.baseline.p99, 9);
  });
});

describe('host histogram bins', () => {
  it('keep a value within 3.2% of its bin midpoint over the range', () => {
    for (let x = 0.01; x < 100_000; x *= 1.013) {
      const b = binOf(x);
      expect(b).toBeGreaterThanOrEqual(0);
      expect(b).toBeLessThan(HISTOGRAM_BINS);
      expect(Math.abs(binValue(b) / x - 1)).toBeLessThan(0.032);
    }
    expect(binOf(0)).toBe(0);
    expect(binOf(1e12)).toBe(HISTOGRAM_BINS - 1);
  });
});
