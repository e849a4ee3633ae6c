import { describe, expect, it } from 'vitest';
import { cumulativeRates } from './metric-rates';

const S = 1e9;
const series = (times: number[], starts: number[], values: number[], monotonic = true) => ({
  timeNs: Float64Array.from(times.map((t) => t * S)),
  startNs: Float64Array.from(starts.map((t) => t * S)),
  values: Float64Array.from(values),
  monotonic,
});

describe('cumulativeRates', () => {
  it('divides increases by the interval', () => {
    const r = cumulativeRates(series([10, 20, 30], [0, 0, 0], [100, 150, 150]));
    expect([...r.perSecond]).toEqual([5, 0]);
    expect([...r.reset]).toEqual([0, 0]);
    expect([...r.timeNs]).toEqual([20 * S, 30 * S]);
  });

  it('counts a drop of a monotonic counter as a reset from zero', () => {
    const r = cumulativeRates(series([10, 20, 30], [0, 0, 0], [100, 150, 30]));
    expect([...r.perSecond]).toEqual([5, 3]);
    expect([...r.reset]).toEqual([0, 1]);
  });

  it('takes a new start time as a restart, counted from that start', () => {
    // Restarted at 25: 40 since then, over the 5 s between the restart and the point.
    const r = cumulativeRates(series([10, 20, 30], [1, 1, 25], [100, 150, 40]));
    expect([...r.perSecond]).toEqual([5, 8]);
    expect([...r.reset]).toEqual([0, 1]);
  });

  it('lets a non-monotonic sum go down without a reset', () => {
    const r = cumulativeRates(series([0, 10], [0, 0], [10, -10], false));
    expect([...r.perSecond]).toEqual([-2]);
    expect([...r.reset]).toEqual([0]);
  });

  it('gives NaN for a zero-length interval and nothing for one point', () => {
    expect([...cumulativeRates(series([5, 5], [0, 0], [1, 2])).perSecond]).toEqual([NaN]);
    expect(cumulativeRates(series([5], [0], [1])).perSecond.length).toBe(0);
  });
});
