import { describe, expect, it } from 'vitest';
import { prepareRequestWhatIf, simulateRequestWhatIf } from '../answer/simulate';
import { synthesizeRequests } from '../trees/synthetic-requests';

const route = { leafService: 'route', leafOperation: 'HTTP GET /route' };
const near = (a: number, b: number, tol: number): void => {
  expect(Math.abs(a / b - 1), `${a} vs ${b}`).toBeLessThan(tol);
};

describe('whole-request replay (HotROD-shaped model)', () => {
  const phase1 = synthesizeRequests({ requests: 3000, workers: 3, seed: 1 });

  it('replays an unchanged pool exactly as recorded', () => {
    const r = simulateRequestWhatIf(
      phase1,
      route,
      { kind: 'pool', workers: 3 },
      { bootstrapSamples: 100 },
    );
    expect(r.applicable).toBe(true);
    for (const k of ['p50', 'p90', 'p99'] as const) {
      expect(r.whatIf[k].value).toBeCloseTo(r.baseline[k], 6);
      expect(r.request.whatIf[k].value).toBeCloseTo(r.request.baseline[k], 6);
    }
  });

  it('pool of 10 predicts the 10-worker recording (fan-out and request within 5%)', () => {
    const phase2 = synthesizeRequests({ requests: 3000, workers: 10, seed: 2 });
    const truth = simulateRequestWhatIf(
      phase2,
      route,
      { kind: 'pool', workers: 10 },
      { bootstrapSamples: 100 },
    );
    const r = simulateRequestWhatIf(
      phase1,
      route,
      { kind: 'pool', workers: 10 },
      { bootstrapSamples: 100 },
    );
    expect(r.whatIf.p50.value).toBeLessThan(0.6 * r.baseline.p50);
    near(r.whatIf.p50.value, truth.baseline.p50, 0.05);
    near(r.whatIf.p99.value, truth.baseline.p99, 0.05);
    near(r.request.whatIf.p50.value, truth.request.baseline.p50, 0.05);
    // The route pool is the last step: the request gains what the edge gains.
    expect(r.request.shareOfEdgeChange).toBeGreaterThan(0.95);
    expect(r.request.shareOfEdgeChange).toBeLessThan(1.05);
  });

  it('a policy that needs another host does not apply to a one-instance callee', () => {
    const r = simulateRequestWhatIf(phase1, route, { kind: 'hedge' }, { bootstrapSamples: 100 });
    expect(r.applicable).toBe(false);
    expect(r.reason).toMatch(/one instance \(route-0\)/);
  });

  it('hedging a sequential edge deep in the tree moves its parent and the request', () => {
    const t = synthesizeRequests({ requests: 2000, workers: 3, seed: 3 });
    const redis = { leafService: 'redis', leafOperation: 'GetDriver' };
    const r = simulateRequestWhatIf(
      t,
      redis,
      { kind: 'hedge', delayMs: 6 },
      { bootstrapSamples: 100 },
    );
    // 3 redis calls in sequence: the edge span shrinks, and the request by the same amount.
    expect(r.whatIf.p99.value).toBeLessThan(r.baseline.p99);
    expect(r.request.whatIf.p50.value).toBeLessThan(r.request.baseline.p50);
    expect(r.request.shareOfEdgeChange).toBeGreaterThan(0.9);
    expect(r.request.shareOfEdgeChange).toBeLessThan(1.1);
  });

  it('hedging the route pool with several instances helps the fan-out', () => {
    const t = synthesizeRequests({ requests: 2000, workers: 3, seed: 4, routeHosts: 4 });
    const r = simulateRequestWhatIf(
      t,
      route,
      { kind: 'hedge', delayPercentile: 90 },
      { bootstrapSamples: 100 },
    );
    expect(r.applicable).toBe(true);
    expect(r.whatIf.p99.value).toBeLessThan(r.baseline.p99);
    expect(r.request.whatIf.p99.value).toBeLessThan(r.request.baseline.p99);
  });

  it('pooled replays: the request and fan-out p99 vary by under 1% across seeds 1-10', () => {
    const t = synthesizeRequests({ requests: 2000, workers: 3, seed: 5, routeHosts: 4 });
    const policy = { kind: 'hedge', delayPercentile: 90 } as const;
    // One plan for the ten answers (also checks that a prepared plan is taken).
    const prepared = prepareRequestWhatIf(t, route, policy);
    const runs = Array.from({ length: 10 }, (_, i) =>
      simulateRequestWhatIf(t, route, policy, { seed: i + 1, bootstrapSamples: 50, prepared }),
    );
    const spread = (v: number[]): number => (Math.max(...v) - Math.min(...v)) / Math.min(...v);
    expect(spread(runs.map((r) => r.request.whatIf.p99.value))).toBeLessThan(0.01);
    expect(spread(runs.map((r) => r.whatIf.p99.value))).toBeLessThan(0.01);
    // The prepared plan gives the answer a fresh one gives, bit for bit.
    const fresh = simulateRequestWhatIf(t, route, policy, { seed: 1, bootstrapSamples: 50 });
    expect(fresh).toEqual(runs[0]);
  });
});
