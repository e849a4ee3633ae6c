/**
 * The capacity what-if's answer: whole requests re-timed by the scenario's new queue waits,
 * their root time before and after with intervals, and the fitted model per service.
 */

import { SeededRandom } from '../random';
import { quantileInclusive, quantileUnsorted } from '../quantile';
import { bootstrapPercentiles, type RequestTrees, type WhatIfEstimate } from '../whatif';
import { fitCapacity, type FitOptions } from './fit';
import { predictScenario, type ServiceOutlook } from './predict';
import type { CallIndex } from './calls';
import { childrenOf, retime, type Children } from './retime';
import type { CapacityChange, CapacityFit } from './types';

export interface Percentiles {
  p50: number;
  p90: number;
  p99: number;
  p999: number;
}

export interface CapacityWhatIf {
  requests: number;
  baseline: Percentiles;
  /** Absent when a service on the requests' path saturates (`saturated` names them). */
  whatIf?: { p50: WhatIfEstimate; p90: WhatIfEstimate; p99: WhatIfEstimate; p999: WhatIfEstimate };
  services: ServiceOutlook[];
  saturatesFirst?: string;
  saturated: string[];
  extrapolated: boolean;
  notes: string[];
}

export interface CapacityOptions extends FitOptions {
  bootstrapSamples?: number;
  /** A fit of these trees made earlier (fitCapacity): the answer then only predicts. */
  fit?: CapacityFit;
}

/** The fitted state plus the children lists the re-timing reads (made once per trees). */
export interface PreparedCapacity {
  fit: CapacityFit;
  children: Children;
}

export function prepareCapacity(t: RequestTrees, o: FitOptions = {}): PreparedCapacity {
  const children = childrenOf(t);
  return { fit: fitCapacity(t, o, children), children };
}

/**
 * The trees re-timed by the changes: new starts and durations of every node (the rest shared
 * with the recorded trees), for another policy to replay on (hedging at 1.5x traffic), or
 * undefined when some service saturates.
 */
export function capacityTrees(
  p: PreparedCapacity,
  changes: readonly CapacityChange[],
  seed = 1,
): { trees?: RequestTrees; scenario: ReturnType<typeof predictScenario> } {
  const scenario = predictScenario(p.fit, changes, seed);
  if (scenario.saturated.length > 0) return { scenario };
  const t = p.fit.trees;
  const startMs = new Float64Array(t.parent.length);
  const durationMs = new Float64Array(t.parent.length);
  retime(t, p.children, scenario.deltaMs, startMs, durationMs);
  return { trees: { ...t, startMs, durationMs }, scenario };
}

/**
 * The load and machine-count what-if over whole requests. Intervals: the percentile bootstrap
 * over requests; when the new load is past the highest observed, each half-width is multiplied
 * by (new load / highest observed)^2 of the most extrapolated service. O(nodes log nodes +
 * the fit's simulations).
 */
export function simulateCapacityWhatIf(
  p: PreparedCapacity,
  changes: readonly CapacityChange[],
  o: { seed?: number; bootstrapSamples?: number } = {},
): CapacityWhatIf {
  const t = p.fit.trees;
  const { trees, scenario } = capacityTrees(p, changes, o.seed ?? 1);
  const requests = t.nodeOffsets.length - 1;
  const recorded = rootTimes(t);
  const baseline = percentiles(Float64Array.from(recorded).sort());
  const widen = Math.max(1, ...scenario.services.map((s) => s.loadOverObserved)) ** 2;
  const extrapolated = scenario.services.some((s) => s.extrapolated);
  const notes = [
    ...(p.fit.preview
      ? [
          `preview: ${requests} of the ${p.fit.preview.of} requests re-timed, on shorter simulations (the model is the whole recording's)`,
        ]
      : []),
    ...modelNotes(scenario.services, widen),
  ];
  const base = {
    requests,
    baseline,
    services: scenario.services,
    ...(scenario.saturatesFirst !== undefined ? { saturatesFirst: scenario.saturatesFirst } : {}),
    saturated: scenario.saturated,
    extrapolated,
  };
  if (!trees)
    return {
      ...base,
      notes: [
        `${scenario.saturated.join(', ')} saturate${scenario.saturated.length === 1 ? 's' : ''}: its new load needs more servers than it has (utilisation >= 1), so no latency is predicted`,
        ...notes,
      ],
    };
  const rng = new SeededRandom(o.seed ?? 1);
  const est = bootstrapPercentiles(rootTimes(trees), rng, o.bootstrapSamples ?? 1000);
  servicePercentiles(p.fit, trees, scenario.services, rng, o.bootstrapSamples ?? 1000, widen);
  const wide = (e: WhatIfEstimate): WhatIfEstimate => ({
    value: e.value,
    low: Math.max(0, e.value - (e.value - e.low) * widen),
    high: e.value + (e.high - e.value) * widen,
  });
  return {
    ...base,
    whatIf: { p50: wide(est.p50), p90: wide(est.p90), p99: wide(est.p99), p999: wide(est.p999) },
    notes,
  };
}

/** The same answer from the trees alone (fit and predict). */
export function capacityWhatIf(
  t: RequestTrees,
  changes: readonly CapacityChange[],
  o: CapacityOptions = {},
): CapacityWhatIf {
  const prepared = o.fit ? { fit: o.fit, children: childrenOf(t) } : prepareCapacity(t, o);
  return simulateCapacityWhatIf(prepared, changes, o);
}

/** Per service its calls' p99 before and after, with the interval widened as the root's. */
function servicePercentiles(
  fit: CapacityFit,
  after: RequestTrees,
  services: ServiceOutlook[],
  rng: SeededRandom,
  samples: number,
  widen: number,
): void {
  // The recorded p99s are the fit's: computed once, kept on it.
  const recorded = (fit.recordedP99 ??= byService(fit.index, fit.trees.durationMs).map((d) =>
    quantileUnsorted(d, 0.99),
  ));
  const now = byService(fit.index, after.durationMs);
  services.forEach((o, s) => {
    o.p99Ms = recorded[s]!;
    const e = bootstrapPercentiles(now[s]!, rng, Math.max(1, Math.floor(samples / 5))).p99;
    o.p99After = {
      value: e.value,
      low: Math.max(0, e.value - (e.value - e.low) * widen),
      high: e.value + (e.high - e.value) * widen,
    };
  });
}

/**
 * Per service the values of its calls, in node order: one pass over the nodes (gathering each
 * instance's calls in arrival order read a column out of order: ~0.4 s at 3 million calls).
 * Quantiles and the bootstrap read the values as a set, so the order does not matter.
 */
function byService(ix: CallIndex, perNode: Float64Array): Float64Array[] {
  const count = new Uint32Array(ix.services.length);
  for (const inst of ix.instances) count[inst.service]! += inst.nodes.length;
  const out = Array.from(count, (m) => new Float64Array(m));
  const at = new Uint32Array(ix.services.length);
  const serviceOf = Int32Array.from(ix.instances, (x) => x.service);
  const instance = ix.instance;
  for (let i = 0; i < instance.length; i++) {
    const k = instance[i]!;
    if (k < 0) continue;
    const s = serviceOf[k]!;
    out[s]![at[s]!++] = perNode[i]!;
  }
  return out;
}

export function rootTimes(t: RequestTrees): Float64Array {
  const n = t.nodeOffsets.length - 1;
  const out = new Float64Array(n);
  for (let q = 0; q < n; q++) out[q] = t.durationMs[t.nodeOffsets[q]!]!;
  return out;
}

function percentiles(sorted: Float64Array): Percentiles {
  return {
    p50: quantileInclusive(sorted, 0.5),
    p90: quantileInclusive(sorted, 0.9),
    p99: quantileInclusive(sorted, 0.99),
    p999: quantileInclusive(sorted, 0.999),
  };
}

function modelNotes(services: readonly ServiceOutlook[], widen: number): string[] {
  const notes = services.map(
    (s) =>
      `${s.service}: ${s.model === 'mgk' ? `M/G/${s.k} per instance` : 'empirical wait-against-load curve'}, fit error ${(100 * s.fitError).toFixed(1)}%, utilisation ${s.utilisation.toFixed(2)} -> ${s.utilisationAfter.toFixed(2)}${s.extrapolated ? `, extrapolated to ${s.loadOverObserved.toFixed(2)}x the highest load observed` : ''}${s.cpu ? `; calibrated by runtime metrics: CPU ${s.cpu.cpuMsPerCall.toFixed(2)} ms per call over ${s.cpu.processes} process${s.cpu.processes === 1 ? '' : 'es'}, CPU utilisation ${s.cpu.utilisation.toFixed(2)} -> ${s.cpu.utilisationAfter.toFixed(2)} (spans: ${s.cpu.spanUtilisation.toFixed(2)})` : ''}`,
  );
  if (widen > 1)
    notes.push(
      `beyond the highest load observed: intervals widened ${widen.toFixed(2)}x (the square of the extrapolation)`,
    );
  return notes;
}
