/**
 * What a policy's replay needs before its draws (index, quantile, hedge scan), so a caller with
 * threads can do it beforehand.
 */

import type { LeafCalls } from '../../types';
import type { ResolvedPolicy } from './policy';
import { latencyQuantile } from '../estimate';
import { buildStaticIndex, type StaticIndex } from './replay-index';
import { hedgeScan, type HedgeScan, type PartsDone } from './hedge';

/**
 * Work a policy's replay (replayPolicy) does before its draws that depends on the calls only,
 * done beforehand by a caller with threads (issue #14's performance part: at 1 million requests
 * the hedge's delay quantile and replay index were ~470 ms of ~600 on the calling thread, one
 * after the other): the same values the replay would compute itself, so the answer is the same
 * bit for bit.
 */
export interface PolicyPrep {
  /** buildStaticIndex(calls), for the policies that draw from a replay index (policyUsesIndex). */
  index?: StaticIndex;
  /** latencyQuantile(calls.durationMs, policyQuantile(p)), when policyQuantile gives one. */
  quantile?: number;
  /** The hedge's draw-free pass (hedgeScan at its delay): withHedgeScan. */
  scan?: HedgeScan;
  /** Makes the hedge's output (shared memory, for threads: written in place, not copied). */
  alloc?: (n: number) => Float64Array;
  /** Told which runs of fan-outs of the hedge's output are final, as it goes (PartsDone). */
  done?: PartsDone;
}

/** Whether the policy's replay draws from a replay index (buildReplayIndex). */
export function policyUsesIndex(p: ResolvedPolicy): boolean {
  return (
    p.kind === 'hedge' || p.kind === 'tied' || p.kind === 'probation' || p.kind === 'avoid-hosts'
  );
}

/**
 * The quantile of call latency the policy's replay takes first, if any: the hedge's delay at a
 * percentile (or at 1 - maxExtraLoad), tied's assumed service time (the median).
 */
export function policyQuantile(p: ResolvedPolicy): number | undefined {
  if (p.kind === 'hedge') {
    const d = p.delay;
    if ('delayMs' in d) return undefined;
    return 'delayPercentile' in d ? d.delayPercentile / 100 : 1 - d.maxExtraLoad;
  }
  if (p.kind === 'tied' && p.serviceMs === undefined) return 0.5;
  return undefined;
}

/**
 * `prep` with the hedge's draw-free pass (hedgeScan) when the policy is a hedge and its delay is
 * known (fixed, or prep.quantile): a caller runs it while the index is still being built.
 */
export function withHedgeScan(calls: LeafCalls, p: ResolvedPolicy, prep: PolicyPrep): PolicyPrep {
  if (p.kind !== 'hedge') return prep;
  const delayMs = 'delayMs' in p.delay ? p.delay.delayMs : prep.quantile;
  return delayMs === undefined ? prep : { ...prep, scan: hedgeScan(calls, delayMs) };
}

/** The prep on this thread (the reference the threaded steps must equal; tests). */
export function preparePolicy(calls: LeafCalls, p: ResolvedPolicy): PolicyPrep {
  const q = policyQuantile(p);
  return withHedgeScan(calls, p, {
    ...(policyUsesIndex(p) ? { index: buildStaticIndex(calls) } : {}),
    ...(q === undefined ? {} : { quantile: latencyQuantile(calls.durationMs, q) }),
  });
}
