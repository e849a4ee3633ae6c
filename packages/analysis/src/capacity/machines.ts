/**
 * Machines needed per service to keep the root p99 under an objective at a load: a greedy
 * search from today's counts (never fewer), adding a machine to the most utilised service until
 * the predicted root p99 is under the objective, or a bound is reached.
 */

import { quantileUnsorted } from '../quantile';
import { capacityTrees, rootTimes, type PreparedCapacity } from './answer';
import { busiestAfter } from './predict';
import type { CapacityChange, LoadChange } from './types';

/** Searches at most this many counts (each a prediction of every request). */
export const MAX_MACHINE_STEPS = 24;
/** A service is first given machines to bring its utilisation under this. */
const TARGET_UTILISATION = 0.9;

export interface MachinesForSlo {
  /** Instances per service (every service of the fit), or undefined when not reached. */
  counts?: Record<string, number>;
  /** The root p99 with those counts, ms. */
  p99Ms?: number;
  steps: number;
}

/** The greedy search. O(steps x prediction). */
export function machinesForSlo(
  p: PreparedCapacity,
  load: LoadChange,
  sloMs: number,
  seed = 1,
): MachinesForSlo {
  const counts: Record<string, number> = {};
  for (const s of p.fit.services) counts[s.service] = s.instances.length;
  for (let steps = 1; steps <= MAX_MACHINE_STEPS; steps++) {
    const changes: CapacityChange[] = [
      load,
      ...Object.entries(counts).map(([service, count]) => ({
        kind: 'machines' as const,
        service,
        count,
      })),
    ];
    const { trees, scenario } = capacityTrees(p, changes, seed);
    const p99 = trees ? quantileUnsorted(rootTimes(trees), 0.99) : Infinity;
    if (p99 <= sloMs) return { counts: { ...counts }, p99Ms: p99, steps };
    // Saturated or over the objective: the most utilised service gets machines, enough to
    // bring it under TARGET_UTILISATION when it is above, else one.
    const top = [...scenario.services].sort((a, b) => busiestAfter(b) - busiestAfter(a))[0];
    if (!top) break;
    const now = counts[top.service] ?? top.instancesAfter;
    const need = Math.ceil((now * busiestAfter(top)) / TARGET_UTILISATION);
    counts[top.service] = Math.max(now + 1, need);
  }
  return { steps: MAX_MACHINE_STEPS };
}
