import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import {
  benjaminiHochberg,
  fisherExactTwoSided,
  logFactorial,
  riskRatioKatz,
  wilsonInterval,
} from './stats';

/** Two-sided Fisher by full enumeration of the hypergeometric support (small tables only). */
function fisherBrute(a: number, b: number, c: number, d: number): number {
  const r1 = a + b;
  const r2 = c + d;
  const c1 = a + c;
  const n = r1 + r2;
  const choose = (m: number, k: number): number =>
    Math.exp(logFactorial(m) - logFactorial(k) - logFactorial(m - k));
  const p = (x: number): number => (choose(r1, x) * choose(r2, c1 - x)) / choose(n, c1);
  const obs = p(a);
  let sum = 0;
  for (let x = Math.max(0, c1 - r2); x <= Math.min(r1, c1); x++)
    if (p(x) <= obs * (1 + 1e-7)) sum += p(x);
  return Math.min(1, sum);
}

describe('statistics vectors', () => {
  it('Fisher exact [[8,2],[1,5]] two-sided p = 0.034965 (R: fisher.test)', () => {
    expect(fisherExactTwoSided(8, 2, 1, 5)).toBeCloseTo(0.034965, 6);
    // Symmetric under transposition and row swap.
    expect(fisherExactTwoSided(8, 1, 2, 5)).toBeCloseTo(0.034965, 6);
    expect(fisherExactTwoSided(1, 5, 8, 2)).toBeCloseTo(0.034965, 6);
  });

  it('Wilson 95% interval for 7/50 = [0.0695, 0.2619]', () => {
    const ci = wilsonInterval(7, 50);
    expect(ci.low).toBeCloseTo(0.0695, 4);
    expect(ci.high).toBeCloseTo(0.2619, 4);
    expect(wilsonInterval(0, 0)).toEqual({ low: 0, high: 1 });
    expect(wilsonInterval(0, 10).low).toBe(0);
  });

  it('Katz risk ratio interval matches the closed form, with Haldane correction on zeros', () => {
    const rr = riskRatioKatz(8, 10, 1, 6);
    expect(rr.ratio).toBeCloseTo(4.8, 12);
    const se = Math.sqrt(1 / 8 - 1 / 10 + 1 / 1 - 1 / 6);
    expect(rr.low).toBeCloseTo(4.8 * Math.exp(-1.959963984540054 * se), 10);
    expect(rr.high).toBeCloseTo(4.8 * Math.exp(1.959963984540054 * se), 10);
    const z = riskRatioKatz(0, 100, 5, 100);
    expect(z.ratio).toBeCloseTo(0.5 / 101 / (5.5 / 101), 12);
    expect(riskRatioKatz(3, 10, 0, 0).ratio).toBeNull();
  });

  it('Benjamini-Hochberg matches R p.adjust(method = "BH")', () => {
    // p.adjust(c(0.01, 0.04, 0.03, 0.5), "BH") = 0.04 0.05333 0.05333 0.5
    const q = benjaminiHochberg([0.01, 0.04, 0.03, 0.5]);
    expect(q[0]).toBeCloseTo(0.04, 12);
    expect(q[1]).toBeCloseTo(0.16 / 3, 12);
    expect(q[2]).toBeCloseTo(0.16 / 3, 12);
    expect(q[3]).toBeCloseTo(0.5, 12);
  });

  it('log-factorial switches from table to Stirling without a seam', () => {
    let exact = 0;
    for (let i = 2; i <= 1030; i++) exact += Math.log(i);
    expect(logFactorial(1030)).toBeCloseTo(exact, 8);
  });

  it('Fisher on large counts finishes and agrees in both orientations', () => {
    const p = fisherExactTwoSided(40, 99_960, 60, 4_899_940);
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThan(1e-10);
    expect(fisherExactTwoSided(40, 60, 99_960, 4_899_940)).toBeCloseTo(p, 20);
    expect(fisherExactTwoSided(500, 500_000, 500, 500_000)).toBeCloseTo(1, 9);
  });
});

describe('Fisher exact against enumeration', () => {
  const cell = fc.integer({ min: 0, max: 25 });
  test.prop([cell, cell, cell, cell])('equals the full enumeration', (a, b, c, d) => {
    expect(fisherExactTwoSided(a, b, c, d)).toBeCloseTo(fisherBrute(a, b, c, d), 9);
  });
});
