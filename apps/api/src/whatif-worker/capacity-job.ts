import {
  capacityTrees,
  machinesForSlo,
  type MachinesForSlo,
  type LoadChange,
  prepareCapacity,
  requestTreesFromColumns,
  simulateCapacityWhatIf,
  simulateRequestWhatIf,
  type CapacityChange,
  type CapacityWhatIf,
  type EdgeTarget,
  type RequestWhatIfResult,
  type SpanColumns,
  type WhatIfPolicy,
} from '@tailscope/analysis';

/**
 * Issue 29's load and machine-count what-if on an analysis thread: the requests' trees, the
 * capacity fit, the prediction, and (with a policy) the policy replayed on the requests
 * re-timed at the new load.
 */
export interface CapacityJob {
  kind: 'capacity';
  columns: SpanColumns;
  changes: CapacityChange[];
  policy?: WhatIfPolicy;
  target: EdgeTarget;
  options: { seed: number; preview: boolean; sloMs?: number };
}

export interface CapacityResult {
  capacity: CapacityWhatIf;
  /** The policy's replay at the new load (absent without a policy, or when saturated). */
  replay?: RequestWhatIfResult;
  machinesForSlo?: MachinesForSlo & { sloMs: number };
}

export function runCapacity(job: CapacityJob): CapacityResult {
  const trees = requestTreesFromColumns(job.columns);
  const seed = job.options.seed;
  const prepared = prepareCapacity(trees, { seed });
  const bootstrapSamples = job.options.preview ? 200 : 1000;
  const capacity = simulateCapacityWhatIf(prepared, job.changes, { seed, bootstrapSamples });
  const sloMs = job.options.sloMs;
  const load: LoadChange = job.changes.find((c) => c.kind === 'load') ?? {
    kind: 'load',
    factor: 1,
  };
  const slo =
    sloMs === undefined
      ? {}
      : { machinesForSlo: { sloMs, ...machinesForSlo(prepared, load, sloMs, seed) } };
  if (!job.policy) return { capacity, ...slo };
  const { trees: atLoad } = capacityTrees(prepared, job.changes, seed);
  if (!atLoad) return { capacity, ...slo };
  const replay = simulateRequestWhatIf(atLoad, job.target, job.policy, {
    seed,
    ...(job.options.preview ? { replays: 1, bootstrapSamples: 200 } : {}),
  });
  return { capacity, replay, ...slo };
}
