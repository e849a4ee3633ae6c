/**
 * Leaf latency distributions: a JSON spec (what scenarios and the truth carry) compiled into a
 * sampler plus, for the truth, cdf / survival / quantile. Milliseconds throughout.
 */
import { normalCdf, normalQuantile, normalSurvival } from './normal';
import { fromRandom, type Random, type Rng } from './random';

export type LatencySpec =
  | { kind: 'fixed'; ms: number }
  | { kind: 'lognormal'; medianMs: number; sigma: number }
  | { kind: 'uniform'; minMs: number; maxMs: number }
  | { kind: 'pareto'; scaleMs: number; alpha: number }
  | { kind: 'mixture'; components: MixtureComponent[] }
  | { kind: 'slowed'; base: LatencySpec; factor: number; addMs: LatencySpec | null }
  | { kind: 'oversleep'; base: LatencySpec; probability: number; minMs: number; maxMs: number };

export interface MixtureComponent {
  weight: number;
  /** Marks the slow component(s): calls drawing it get CallEffect.tail. */
  tail?: boolean;
  dist: LatencySpec;
}

/** The draws a sampler needs; the generator's Rng provides them. */
export type Draw = Pick<Rng, 'float' | 'positive' | 'normal'>;
export type Sampler = (draw: Draw) => number;

export interface Distribution {
  readonly spec: LatencySpec;
  /** False when survival/cdf come from numerical convolution (accurate to ~1e-3). */
  readonly analytic: boolean;
  readonly mean: number;
  sample(random: Random): number;
  cdf(ms: number): number;
  survival(ms: number): number;
  /** The smallest x with cdf(x) >= p (bisection when there is no closed form). */
  quantile(p: number): number;
}

/** Compiles a spec into its sampler (the generator's hot path: no allocation per draw). */
export function compileSampler(spec: LatencySpec): Sampler {
  switch (spec.kind) {
    case 'fixed': {
      const ms = spec.ms;
      return () => ms;
    }
    case 'lognormal': {
      const { medianMs, sigma } = spec;
      return (d) => medianMs * Math.exp(sigma * d.normal());
    }
    case 'uniform': {
      const { minMs, maxMs } = spec;
      return (d) => minMs + (maxMs - minMs) * d.float();
    }
    case 'pareto': {
      const { scaleMs, alpha } = spec;
      return (d) => scaleMs * Math.pow(d.positive(), -1 / alpha);
    }
    case 'mixture': {
      const pick = componentPicker(spec);
      const samplers = spec.components.map((c) => compileSampler(c.dist));
      return (d) => (samplers[pick(d.float())] ?? samplers[0] ?? zero)(d);
    }
    case 'slowed': {
      const base = compileSampler(spec.base);
      const add = spec.addMs ? compileSampler(spec.addMs) : zero;
      const factor = spec.factor;
      return (d) => base(d) * factor + add(d);
    }
    case 'oversleep': {
      const base = compileSampler(spec.base);
      const { probability, minMs, maxMs } = spec;
      return (d) => {
        const l = base(d);
        return d.float() < probability ? l + minMs + (maxMs - minMs) * d.float() : l;
      };
    }
  }
}

const zero: Sampler = () => 0;

/** Maps a uniform u in [0, 1) to a mixture component index by cumulative weight. */
export function componentPicker(spec: {
  components: readonly { weight: number }[];
}): (u: number) => number {
  const total = spec.components.reduce((s, c) => s + c.weight, 0);
  const cumulative = Float64Array.from(spec.components, () => 0);
  let acc = 0;
  spec.components.forEach((c, i) => {
    acc += c.weight / total;
    cumulative[i] = acc;
  });
  const last = spec.components.length - 1;
  return (u) => {
    for (let i = 0; i < last; i++) if (u < (cumulative[i] ?? 1)) return i;
    return last;
  };
}

/** The distribution a spec describes, for the truth and for tests. */
export function distribution(spec: LatencySpec): Distribution {
  const sampler = compileSampler(spec);
  const cdf = cdfOf(spec);
  const analytic = isAnalytic(spec);
  const d = {
    spec,
    analytic,
    mean: meanOf(spec),
    sample: (random: Random) => sampler(fromRandom(random)),
    cdf,
    survival: survivalOf(spec, cdf),
    quantile: quantileOf(spec, cdf),
    // Functions do not serialize; a truth written as JSON keeps what describes the law.
    toJSON: () => ({ spec, analytic }),
  };
  return d;
}

function isAnalytic(spec: LatencySpec): boolean {
  switch (spec.kind) {
    case 'mixture':
      return spec.components.every((c) => isAnalytic(c.dist));
    case 'slowed':
      return spec.addMs === null && isAnalytic(spec.base);
    case 'oversleep':
      return false;
    default:
      return true;
  }
}

function meanOf(spec: LatencySpec): number {
  switch (spec.kind) {
    case 'fixed':
      return spec.ms;
    case 'lognormal':
      return spec.medianMs * Math.exp((spec.sigma * spec.sigma) / 2);
    case 'uniform':
      return (spec.minMs + spec.maxMs) / 2;
    case 'pareto':
      return spec.alpha > 1 ? (spec.alpha * spec.scaleMs) / (spec.alpha - 1) : Infinity;
    case 'mixture': {
      const total = spec.components.reduce((s, c) => s + c.weight, 0);
      return spec.components.reduce((s, c) => s + (c.weight / total) * meanOf(c.dist), 0);
    }
    case 'slowed':
      return meanOf(spec.base) * spec.factor + (spec.addMs ? meanOf(spec.addMs) : 0);
    case 'oversleep':
      return meanOf(spec.base) + (spec.probability * (spec.minMs + spec.maxMs)) / 2;
  }
}

/** Quadrature points for convolutions: midpoints of QUAD equal-probability bins. */
const QUAD = 512;

function cdfOf(spec: LatencySpec): (ms: number) => number {
  switch (spec.kind) {
    case 'fixed':
      return (x) => (x >= spec.ms ? 1 : 0);
    case 'lognormal':
      return (x) => (x <= 0 ? 0 : normalCdf(Math.log(x / spec.medianMs) / spec.sigma));
    case 'uniform':
      return (x) =>
        x < spec.minMs ? 0 : x >= spec.maxMs ? 1 : (x - spec.minMs) / (spec.maxMs - spec.minMs);
    case 'pareto':
      return (x) => (x <= spec.scaleMs ? 0 : 1 - Math.pow(spec.scaleMs / x, spec.alpha));
    case 'mixture': {
      const total = spec.components.reduce((s, c) => s + c.weight, 0);
      const parts = spec.components.map((c) => ({ w: c.weight / total, cdf: cdfOf(c.dist) }));
      return (x) => parts.reduce((s, p) => s + p.w * p.cdf(x), 0);
    }
    case 'slowed': {
      const base = cdfOf(spec.base);
      const f = spec.factor;
      if (!spec.addMs) return (x) => base(x / f);
      const points = quadraturePoints(spec.addMs);
      return (x) => points.reduce((s, a) => s + base((x - a) / f), 0) / points.length;
    }
    case 'oversleep': {
      const base = cdfOf(spec.base);
      const { probability: p, minMs, maxMs } = spec;
      const points = quadraturePoints({ kind: 'uniform', minMs, maxMs });
      return (x) =>
        (1 - p) * base(x) + (p * points.reduce((s, a) => s + base(x - a), 0)) / points.length;
    }
  }
}

function quadraturePoints(spec: LatencySpec): number[] {
  const q = quantileOf(spec, cdfOf(spec));
  return Array.from({ length: QUAD }, (_, i) => q((i + 0.5) / QUAD));
}

function survivalOf(spec: LatencySpec, cdf: (ms: number) => number): (ms: number) => number {
  // Closed forms where 1 - cdf would lose the far tail to cancellation.
  if (spec.kind === 'lognormal')
    return (x) => (x <= 0 ? 1 : normalSurvival(Math.log(x / spec.medianMs) / spec.sigma));
  if (spec.kind === 'pareto')
    return (x) => (x <= spec.scaleMs ? 1 : Math.pow(spec.scaleMs / x, spec.alpha));
  if (spec.kind === 'mixture') {
    const total = spec.components.reduce((s, c) => s + c.weight, 0);
    const parts = spec.components.map((c) => ({
      w: c.weight / total,
      s: survivalOf(c.dist, cdfOf(c.dist)),
    }));
    return (x) => parts.reduce((s, p) => s + p.w * p.s(x), 0);
  }
  return (x) => 1 - cdf(x);
}

function quantileOf(spec: LatencySpec, cdf: (ms: number) => number): (p: number) => number {
  switch (spec.kind) {
    case 'fixed':
      return () => spec.ms;
    case 'lognormal':
      return (p) => spec.medianMs * Math.exp(spec.sigma * normalQuantile(p));
    case 'uniform':
      return (p) => spec.minMs + (spec.maxMs - spec.minMs) * p;
    case 'pareto':
      return (p) => spec.scaleMs * Math.pow(1 - p, -1 / spec.alpha);
    default:
      return (p) => bisect(cdf, p);
  }
}

function bisect(cdf: (ms: number) => number, p: number): number {
  let hi = 1;
  for (let i = 0; i < 200 && cdf(hi) < p; i++) hi *= 2;
  let lo = 0;
  for (let i = 0; i < 100 && hi - lo > 1e-9 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (cdf(mid) >= p) hi = mid;
    else lo = mid;
  }
  return hi;
}
