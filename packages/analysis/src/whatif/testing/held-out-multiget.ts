/* A held-out 100-wide multi-get whose true hedged counterfactual is known in closed form, for
   the replay-noise and synthetic-truth tests and the benchmark. Not exported by the package. */
import type { LeafCalls } from '../../types';
import { synthesizeLeafCalls } from '../fanout';

/**
 * The model: every call independently 1 + X ms, X lognormal(mu 1, sigma 0.5), ten times that
 * with p = 2% (a slow call: median 27 ms). Continuous, so no quantile sits in a gap.
 */
const MU = 1;
const SIGMA = 0.5;
const SLOW_P = 0.02;
const SLOW_FACTOR = 10;
export const MULTIGET_WIDTH = 100;

/** Standard normal CDF (Abramowitz-Stegun 26.2.17, absolute error < 7.5e-8). */
function phi(z: number): number {
  const t = 1 / (1 + 0.2316419 * Math.abs(z));
  const d = 0.3989422804014327 * Math.exp((-z * z) / 2);
  const p =
    d *
    t *
    (0.31938153 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))));
  return z >= 0 ? 1 - p : p;
}

const lognormalCdf = (x: number): number => (x <= 0 ? 0 : phi((Math.log(x) - MU) / SIGMA));

/** The model's call latency CDF. */
export function callCdf(t: number): number {
  return (1 - SLOW_P) * lognormalCdf(t - 1) + SLOW_P * lognormalCdf((t - 1) / SLOW_FACTOR);
}

/** A hedged call (one backup after d, independent latency): P(min(L, d + L') <= t). */
export function hedgedCallCdf(t: number, d: number): number {
  const f = callCdf(t);
  return t < d ? f : f + (1 - f) * callCdf(t - d);
}

/** The t where the increasing function cdf reaches q, by bisection on [0, 1000] ms. */
export function solve(cdf: (t: number) => number, q: number): number {
  let lo = 0;
  let hi = 1000;
  for (let k = 0; k < 80; k++) {
    const m = (lo + hi) / 2;
    if (cdf(m) < q) lo = m;
    else hi = m;
  }
  return (lo + hi) / 2;
}

/** True quantile q of the all-leaves time of a 100-wide multi-get hedged after d ms. */
export function trueHedgedAllLeaves(q: number, d: number): number {
  return solve((t) => hedgedCallCdf(t, d) ** MULTIGET_WIDTH, q);
}

/** Recorded multi-gets drawn from the model: 500 a second, 20 hosts. */
export function heldOutMultiget(fanouts: number, seed: number): LeafCalls {
  return synthesizeLeafCalls({
    fanouts,
    width: MULTIGET_WIDTH,
    hosts: 20,
    seed,
    fanoutsPerSecond: 500,
    latencyMs: (u) => {
      const z = Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
      return 1 + Math.exp(MU + SIGMA * z) * (u() < SLOW_P ? SLOW_FACTOR : 1);
    },
  });
}
