/**
 * The merged target calls written in place by the threads that planned the parts.
 */

import type { LeafCalls } from '../../../types';
import type { RequestHead } from '../answer';
import type { PartOffsets } from '../answer';
import type { RequestPlan } from '../plan';

/**
 * The merged target calls written in place by the parts (issue #14's performance part): the
 * threads that planned the parts write their calls straight into the merged columns (on shared
 * memory), where mergeParts copies every part's calls out of its plan and then into the merged
 * columns on the calling thread (~180 MB at 4 million target calls, while the other threads
 * wait). The merged columns hold the same values as mergeParts', so the policy's replay is the
 * same bit for bit.
 */

/** A part's call count as its plan holds them (`calls` of partCallsAt). */
export function planCalls(plan: RequestPlan): number {
  const b = plan.blocks;
  // A durationsOnly plan (the pool policy's) carries no starts, hosts or modes to merge.
  if (
    b.startMs.length !== b.durationMs.length ||
    b.fanoutStartMs.length + 1 !== b.fanoutOffsets.length
  )
    throw new Error('a part writes its calls only from a full plan');
  return b.durationMs.length;
}

/**
 * Room for every part's calls laid end to end (as mergeParts lays them) in `head`, a merge of
 * heads without calls (partHead(plan, false)): `calls[i]` is part i's planCalls. Returns where
 * each part's calls start. `f64` and `u32` make the columns (shared memory, for threads).
 */
export function mergedCallRoom(
  head: RequestHead,
  at: PartOffsets,
  calls: readonly number[],
  f64: (n: number) => Float64Array,
  u32: (n: number) => Uint32Array,
): Uint32Array {
  const P = calls.length;
  const callAt = new Uint32Array(P + 1);
  for (let i = 0; i < P; i++) callAt[i + 1] = callAt[i]! + calls[i]!;
  const n = callAt[P]!;
  const B = at.blocks[P]!;
  const b = head.blocks;
  const offsets = u32(n > 0 ? B + 1 : 1);
  offsets[0] = 0;
  const merged: LeafCalls = {
    ...b,
    fanoutOffsets: offsets,
    fanoutStartMs: f64(n > 0 ? B : 0),
    startMs: f64(n),
    durationMs: f64(n),
    host: u32(n),
    mode: u32(n),
    background: u32(n),
  };
  head.blocks = merged;
  return callAt;
}

/** Part i's calls (its plan) written into the merged columns of mergedCallRoom. */
export function writePartCalls(
  plan: RequestPlan,
  merged: LeafCalls,
  blockAt: number,
  callAt: number,
): void {
  const b = plan.blocks;
  planCalls(plan);
  if (merged.durationMs.length === 0) return;
  merged.fanoutStartMs.set(b.fanoutStartMs, blockAt);
  merged.startMs.set(b.startMs, callAt);
  merged.durationMs.set(b.durationMs, callAt);
  merged.host.set(b.host, callAt);
  merged.mode.set(b.mode, callAt);
  merged.background.set(b.background, callAt);
  const off = b.fanoutOffsets;
  const out = merged.fanoutOffsets;
  for (let k = 1; k < off.length; k++) out[blockAt + k] = callAt + off[k]!;
}
