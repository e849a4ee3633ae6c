import { describe, expect, it } from 'vitest';
import { createRandom, distribution, type LatencySpec } from './index';
import { normalCdf, normalQuantile } from './normal';

/** Empirical survival at x from n draws; binomial sd = sqrt(S(1-S)/n). */
function empiricalSurvival(spec: LatencySpec, xs: number[], n: number, seed: number) {
  const d = distribution(spec);
  const random = createRandom(seed);
  const draws = Array.from({ length: n }, () => d.sample(random));
  return xs.map((x) => ({
    x,
    observed: draws.filter((v) => v > x).length / n,
    truth: d.survival(x),
  }));
}

describe('normal', () => {
  it('matches tabulated values', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-2.326348)).toBeCloseTo(0.01, 6);
    expect(normalQuantile(0.999)).toBeCloseTo(3.090232, 5);
    for (const p of [1e-6, 0.01, 0.3, 0.5, 0.9, 0.999999])
      expect(normalCdf(normalQuantile(p)) / p).toBeCloseTo(1, 5);
  });
});

describe('distributions', () => {
  const cases: [string, LatencySpec, number[]][] = [
    ['lognormal', { kind: 'lognormal', medianMs: 2, sigma: 0.5 }, [1, 2, 4, 8]],
    ['pareto', { kind: 'pareto', scaleMs: 1, alpha: 1.5 }, [1.5, 3, 10]],
    ['uniform', { kind: 'uniform', minMs: 10, maxMs: 30 }, [12, 20, 29]],
    [
      'mixture with a fixed outlier',
      {
        kind: 'mixture',
        components: [
          { weight: 0.9, dist: { kind: 'lognormal', medianMs: 10, sigma: 0.1 } },
          { weight: 0.1, tail: true, dist: { kind: 'fixed', ms: 1000 } },
        ],
      },
      [9, 11, 500],
    ],
    [
      'oversleep (numerical convolution)',
      {
        kind: 'oversleep',
        base: { kind: 'lognormal', medianMs: 1, sigma: 0.35 },
        probability: 0.1,
        minMs: 10,
        maxMs: 30,
      },
      [1, 5, 15, 25],
    ],
    [
      'slowed (numerical convolution)',
      {
        kind: 'slowed',
        base: { kind: 'lognormal', medianMs: 2, sigma: 0.4 },
        factor: 4,
        addMs: { kind: 'lognormal', medianMs: 15, sigma: 0.5 },
      },
      [15, 23, 40],
    ],
  ];

  it.each(cases)('%s: samples follow the stated survival (5 binomial sd)', (_, spec, xs) => {
    const n = 20_000;
    for (const { observed, truth } of empiricalSurvival(spec, xs, n, 17)) {
      const sd = Math.sqrt((truth * (1 - truth)) / n);
      expect(Math.abs(observed - truth)).toBeLessThan(5 * sd + 2e-3);
    }
  });

  it.each(cases)('%s: quantile inverts cdf', (_, spec) => {
    const d = distribution(spec);
    for (const p of [0.1, 0.5, 0.95]) {
      const q = d.quantile(p);
      expect(d.cdf(q)).toBeGreaterThanOrEqual(p - 1e-6);
      expect(d.cdf(q * (1 - 1e-3))).toBeLessThanOrEqual(p + 1e-6);
    }
  });

  it('lognormal has its closed forms', () => {
    const d = distribution({ kind: 'lognormal', medianMs: 1, sigma: 0.9 });
    expect(d.quantile(0.5)).toBeCloseTo(1, 9);
    expect(d.mean).toBeCloseTo(Math.exp(0.405), 9);
    expect(d.analytic).toBe(true);
    expect(d.survival(1e6)).toBeGreaterThan(0);
    expect(JSON.parse(JSON.stringify(d))).toEqual({ spec: d.spec, analytic: true });
  });
});
