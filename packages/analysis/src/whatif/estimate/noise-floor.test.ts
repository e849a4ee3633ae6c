import { describe, expect, test } from 'vitest';
import { quantileNoiseFloor } from './noise-floor';
import { SeededRandom } from '../../random';

const exponential = (n: number, seed: number): Float64Array => {
  const rng = new SeededRandom(seed);
  return Float64Array.from({ length: n }, () => -Math.log(1 - rng.float()));
};

describe('quantileNoiseFloor', () => {
  // Exponential(1), n = 5000: the p99 estimate's variance is p(1 - p) / (n f(q)^2) = 99 / n at
  // q = ln 100 (f(q) = 0.01), so log q-hat has sd sqrt(99 / n) / ln 100 = 0.0306; the log
  // ratio of two independent groups sd 0.0432, 95% within 1.96 x 0.0432 = 0.085 -> 8.8%.
  // Tolerance: 400 seeded splits estimate that 95th percentile to about +-15% of itself.
  test('matches the asymptotic spread of the p99 of independent samples', () => {
    const floor = quantileNoiseFloor(exponential(5000, 11), 0.99);
    expect(floor).toBeGreaterThan(0.088 * 0.8);
    expect(floor).toBeLessThan(0.088 * 1.2);
  });

  test('shrinks as 1/sqrt(n): four times the samples, about half the floor', () => {
    const small = quantileNoiseFloor(exponential(4000, 5), 0.99);
    const large = quantileNoiseFloor(exponential(16000, 5), 0.99);
    expect(large / small).toBeGreaterThan(0.38);
    expect(large / small).toBeLessThan(0.65);
  });

  test('a constant sample has no noise, too few samples give NaN, same seed same answer', () => {
    expect(quantileNoiseFloor(new Float64Array(1000).fill(3), 0.99)).toBe(0);
    expect(quantileNoiseFloor(new Float64Array(150).fill(3), 0.99)).toBeNaN();
    const xs = exponential(2000, 9);
    expect(quantileNoiseFloor(xs, 0.9)).toBe(quantileNoiseFloor(xs, 0.9));
    expect(Array.from(xs)).toEqual(Array.from(exponential(2000, 9)));
  });
});
