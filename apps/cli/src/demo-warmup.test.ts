import { describe, expect, it } from 'vitest';
import { latencySettled, STABLE_WINDOWS, type WarmupWindow } from './demo-warmup';

const w = (p50Ms: number, p99Ms: number, failed = 0, answers = 45): WarmupWindow => ({
  p50Ms,
  p99Ms,
  failed,
  answers,
});

describe('latencySettled', () => {
  it('waits out the start-up storm and settles once p50 and p99 hold', () => {
    // The first minute as the issue measured it on 2 cores, then the steady state.
    const storm = [w(1500, 4900, 12), w(900, 2100, 3), w(400, 1500), w(60, 400), w(20, 130)];
    expect(latencySettled(storm)).toBe(false);
    const steady = [...storm, w(16, 110), w(18, 85), w(15, 120)];
    expect(latencySettled(steady)).toBe(true);
  });

  it('needs every window answered and none failed', () => {
    expect(latencySettled([w(16, 90), w(16, 90), w(16, 90, 1)])).toBe(false);
    expect(latencySettled([w(16, 90), w(16, 90), w(Number.NaN, Number.NaN, 0, 0)])).toBe(false);
    expect(latencySettled(Array.from({ length: STABLE_WINDOWS - 1 }, () => w(16, 90)))).toBe(false);
  });

  it('refuses a p50 that still moves and a p99 that more than doubles', () => {
    expect(latencySettled([w(16, 90), w(40, 100), w(16, 95)])).toBe(false);
    expect(latencySettled([w(16, 100), w(16, 260), w(16, 105)])).toBe(false);
    expect(latencySettled([w(5, 12), w(12, 50), w(14, 60)])).toBe(true);
  });
});
