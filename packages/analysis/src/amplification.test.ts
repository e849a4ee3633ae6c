import { describe, expect, it } from 'vitest';
import {
  amplification,
  amplificationCurve,
  amplificationVerdict,
  predictedTailProbability,
  widthHistogram,
} from './amplification';
import { fanoutMaxima } from './fanout-stats';
import { paperFanouts } from './fixtures';

/**
 * The paper's Figure 1: N servers, 1 call in 100 slow at ~1 s. With independent slowness the
 * share of requests slower than t (between the modes) is 1 - 0.99^N: 0.634 at N = 100.
 *
 * Tolerances (4 standard deviations, fixed seeds):
 * - observed, a binomial proportion over F fan-outs: 4 sqrt(p (1 - p) / F);
 * - predicted = 1 - F(t)^N with F(t) estimated from F*N calls: by the delta method
 *   4 N 0.99^(N-1) sqrt(0.99 * 0.01 / (F N)), plus 1e-12.
 */
const FANOUTS = 4000;

describe('amplification against 1 - 0.99^N', () => {
  for (const n of [1, 10, 50, 100]) {
    it(`N = ${n}: observed and predicted match 1 - 0.99^${n}`, () => {
      const calls = paperFanouts({ fanouts: FANOUTS, width: n, slowProbability: 0.01, seed: n });
      const { allLeavesMs } = fanoutMaxima(calls);
      const { amplification: a } = amplification(calls, allLeavesMs, 500);
      const truth = 1 - Math.pow(0.99, n);
      const obsTol = 4 * Math.sqrt((truth * (1 - truth)) / FANOUTS);
      const predTol =
        4 * n * Math.pow(0.99, n - 1) * Math.sqrt((0.99 * 0.01) / (FANOUTS * n)) + 1e-12;
      expect(Math.abs(a.observedTailProbability - truth)).toBeLessThan(obsTol);
      expect(Math.abs(a.predictedTailProbability - truth)).toBeLessThan(predTol);
      if (n === 1) expect(a.observedTailProbability).toBeCloseTo(a.predictedTailProbability, 12);
      if (n === 100) expect(truth).toBeCloseTo(0.634, 3);
      // Enough data for a verdict except at N = 1 (0.01 * 4000 = 40 expected): independent.
      expect(a.verdict).toBe('independent');
    });
  }

  it('with the default threshold (single-call p99) independent slowness reads independent', () => {
    const calls = paperFanouts({ fanouts: FANOUTS, width: 100, slowProbability: 0.01, seed: 7 });
    const { amplification: a } = amplification(calls, fanoutMaxima(calls).allLeavesMs);
    expect(a.singleCallCdf).toBeGreaterThan(0.985);
    expect(a.verdict).toBe('independent');
    expect(a.observedLow).toBeLessThanOrEqual(a.predictedTailProbability);
  });

  it('slowness shared by the calls of a request reads correlated', () => {
    const calls = paperFanouts({
      fanouts: FANOUTS,
      width: 100,
      slowProbability: 0.01,
      correlated: true,
      seed: 3,
    });
    const { amplification: a } = amplification(calls, fanoutMaxima(calls).allLeavesMs, 500);
    // Observed ~1% of requests slow, predicted ~63%: far outside the interval.
    expect(a.observedTailProbability).toBeLessThan(0.03);
    expect(a.predictedTailProbability).toBeGreaterThan(0.55);
    expect(a.verdict).toBe('correlated');
  });

  it('says insufficient-data with few fan-outs or few expected tail fan-outs', () => {
    expect(amplificationVerdict(3, 10, 0.6)).toBe('insufficient-data');
    expect(amplificationVerdict(0, 100, 0.01)).toBe('insufficient-data');
    expect(amplificationVerdict(0, 100, NaN)).toBe('insufficient-data');
    expect(amplificationVerdict(5, 100, 0.06)).toBe('independent');
    expect(amplificationVerdict(1, 100, 0.3)).toBe('correlated');
  });

  it('averages the prediction over the fan-outs’ own widths and draws the curve', () => {
    const hist = widthHistogram([2, 4, 4, 2, 8], [1, 5, 5, 1, 9], 3);
    expect(hist).toEqual([
      { width: 2, fanouts: 2, tailFanouts: 0 },
      { width: 4, fanouts: 2, tailFanouts: 2 },
      { width: 8, fanouts: 1, tailFanouts: 1 },
    ]);
    const F = 0.9;
    const expected = (2 * (1 - F ** 2) + 2 * (1 - F ** 4) + (1 - F ** 8)) / 5;
    expect(predictedTailProbability(hist, F)).toBeCloseTo(expected, 14);
    const curve = amplificationCurve(hist, F);
    expect(curve.find((p) => p.width === 4)).toEqual({
      width: 4,
      observed: 1,
      predicted: 1 - F ** 4,
      fanouts: 2,
    });
    expect(curve.find((p) => p.width === 100)).toEqual({ width: 100, predicted: 1 - F ** 100 });
    expect(curve.map((p) => p.width)).toEqual([...curve.map((p) => p.width)].sort((a, b) => a - b));
  });
});
