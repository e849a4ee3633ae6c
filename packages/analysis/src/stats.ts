/**
 * Small exact statistics for attribution and amplification: Wilson score interval, Fisher's
 * exact test, the Katz log risk-ratio interval and Benjamini-Hochberg q-values.
 */

/** z for a two-sided 95% interval (the 0.975 standard normal quantile). */
export const Z95 = 1.959963984540054;

export interface Interval {
  low: number;
  high: number;
}

/**
 * Wilson score interval for a binomial proportion k/n at normal quantile z (default 95%).
 * Probabilities in [0, 1]. O(1). n = 0 gives [0, 1] (nothing is known).
 * Good coverage for small n and for k near 0 or n, where the Wald interval fails.
 */
export function wilsonInterval(k: number, n: number, z: number = Z95): Interval {
  if (n <= 0) return { low: 0, high: 1 };
  const p = k / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, center - half), high: Math.min(1, center + half) };
}

const LOG_FACTORIAL_TABLE = ((): Float64Array => {
  const t = new Float64Array(1024);
  for (let i = 2; i < t.length; i++) t[i] = (t[i - 1] as number) + Math.log(i);
  return t;
})();
const HALF_LOG_2PI = 0.5 * Math.log(2 * Math.PI);

/**
 * ln(n!) for a non-negative integer n: a table below 1024, Stirling's series above (relative
 * error below 1e-15 there). O(1).
 */
export function logFactorial(n: number): number {
  if (n < 1024) return LOG_FACTORIAL_TABLE[n] as number;
  const x = n + 1;
  const x2 = x * x;
  return (
    (x - 0.5) * Math.log(x) -
    x +
    HALF_LOG_2PI +
    1 / (12 * x) -
    1 / (360 * x * x2) +
    1 / (1260 * x2 * x2 * x)
  );
}

/**
 * Fisher's exact test on the 2x2 table [[a, b], [c, d]], two-sided: the sum of the
 * hypergeometric probabilities (margins fixed) of every table no more likely than the observed
 * one (relative tolerance 1e-7, as R's fisher.test). Exact for any counts: the tails are summed
 * outward from the boundary until the terms vanish, so the cost is O(log n + width of the tails
 * that matter), not O(n). Returns a probability in [0, 1]; a table with an empty margin gives 1.
 */
export function fisherExactTwoSided(a: number, b: number, c: number, d: number): number {
  const r1 = a + b;
  const r2 = c + d;
  const c1 = a + c;
  const n = r1 + r2;
  if (r1 === 0 || r2 === 0 || c1 === 0 || c1 === n) return 1;
  const lo = Math.max(0, c1 - r2);
  const hi = Math.min(r1, c1);
  const base =
    logFactorial(r1) + logFactorial(r2) + logFactorial(c1) + logFactorial(n - c1) - logFactorial(n);
  const logP = (x: number): number =>
    base -
    logFactorial(x) -
    logFactorial(r1 - x) -
    logFactorial(c1 - x) -
    logFactorial(r2 - c1 + x);
  const threshold = logP(a) + Math.log1p(1e-7);
  const mode = Math.min(hi, Math.max(lo, Math.floor(((r1 + 1) * (c1 + 1)) / (n + 2))));

  // Left of the mode the probabilities rise: the qualifying x form a prefix [lo, xL].
  let xL = lo - 1;
  {
    let l = lo;
    let h = mode - 1;
    while (l <= h) {
      const m = (l + h) >>> 1;
      if (logP(m) <= threshold) {
        xL = m;
        l = m + 1;
      } else h = m - 1;
    }
  }
  // From the mode on they fall: the qualifying x form a suffix [xR, hi].
  let xR = hi + 1;
  {
    let l = mode;
    let h = hi;
    while (l <= h) {
      const m = (l + h) >>> 1;
      if (logP(m) <= threshold) {
        xR = m;
        h = m - 1;
      } else l = m + 1;
    }
  }
  let p = 0;
  if (xL >= lo) {
    // P(x-1)/P(x) = x (r2 - c1 + x) / ((r1 - x + 1)(c1 - x + 1))
    p +=
      Math.exp(logP(xL)) *
      sumTail(xL, lo, -1, (x) => (x * (r2 - c1 + x)) / ((r1 - x + 1) * (c1 - x + 1)));
  }
  if (xR <= hi) {
    // P(x+1)/P(x) = (r1 - x)(c1 - x) / ((x + 1)(r2 - c1 + x + 1))
    p +=
      Math.exp(logP(xR)) *
      sumTail(xR, hi, 1, (x) => ((r1 - x) * (c1 - x)) / ((x + 1) * (r2 - c1 + x + 1)));
  }
  return Math.min(1, p);
}

/**
 * Sum of P(x)/P(start) walking from `start` to `end` by `step`, with `ratio(x)` = P(x+step)/P(x).
 * The ratios shrink moving away from the mode (log-concavity), so once the remaining terms are
 * bounded by a geometric series below 1e-17 of the sum, the walk stops.
 */
function sumTail(start: number, end: number, step: 1 | -1, ratio: (x: number) => number): number {
  let sum = 1;
  let term = 1;
  for (let x = start; x !== end; x += step) {
    const r = ratio(x);
    term *= r;
    sum += term;
    if (r < 1 && (term * r) / (1 - r) < 1e-17 * sum) break;
  }
  return sum;
}

export interface RiskRatio {
  /** P(event | exposed) / P(event | unexposed); null when either group is empty. */
  ratio: number | null;
  low: number | null;
  high: number | null;
}

/**
 * Risk ratio (a / n1) / (c / n2) with the Katz log-method interval:
 * exp(ln RR +- z sqrt(1/a - 1/n1 + 1/c - 1/n2)). With a zero count (a or c = 0) every cell gets
 * +0.5 (Haldane-Anscombe), so the ratio and interval stay finite. O(1).
 * `a` events among `n1` exposed, `c` events among `n2` unexposed.
 */
export function riskRatioKatz(
  a: number,
  n1: number,
  c: number,
  n2: number,
  z: number = Z95,
): RiskRatio {
  if (n1 <= 0 || n2 <= 0) return { ratio: null, low: null, high: null };
  let ea = a;
  let en1 = n1;
  let ec = c;
  let en2 = n2;
  if (a === 0 || c === 0) {
    ea += 0.5;
    ec += 0.5;
    en1 += 1;
    en2 += 1;
  }
  const ratio = ea / en1 / (ec / en2);
  const se = Math.sqrt(1 / ea - 1 / en1 + 1 / ec - 1 / en2);
  const l = Math.log(ratio);
  return { ratio, low: Math.exp(l - z * se), high: Math.exp(l + z * se) };
}

/**
 * Benjamini-Hochberg q-values (step-up FDR adjusted p-values) for the whole family `p`, in the
 * input order: q(i) = min over j >= rank(i) of min(1, p(j) m / j). O(m log m).
 * Calling a value significant when q < alpha controls the false discovery rate at alpha.
 */
export function benjaminiHochberg(p: readonly number[]): number[] {
  const m = p.length;
  const order = p.map((_, i) => i).sort((i, j) => (p[i] as number) - (p[j] as number));
  const q = new Array<number>(m);
  let running = 1;
  for (let r = m - 1; r >= 0; r--) {
    const i = order[r] as number;
    running = Math.min(running, ((p[i] as number) * m) / (r + 1));
    q[i] = Math.min(1, running);
  }
  return q;
}
