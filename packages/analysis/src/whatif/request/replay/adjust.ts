// What simulateRequestWhatIf adds around the compiled replay: the closed-loop model's
// re-timing of each replay and the sampling weights of its outputs.
import { prepareRequests } from './replay';
import type { RequestTrees } from '../trees';
import { allOnes } from '../../../weighted-quantile';
import { ownEntry } from '../../../own-keys';

/**
 * A trace's weight: its own entry in `byTrace`, else 1. Trace ids are whatever a client sent,
 * so `constructor` or `__proto__` must not find Object.prototype's members (NaN weights made
 * the replay hang, issue 25).
 */
const weightOf = (byTrace: Readonly<Record<string, number>>, id: string): number =>
  ownEntry(byTrace, id) ?? 1;

/**
 * Per target group and per involved request, the request's trace weight (1 when unknown), or
 * undefined when every weight is 1. O(nodes).
 */
function weightsOf(
  t: RequestTrees,
  groupOf: Int32Array,
  groups: number,
  involved: Uint32Array,
  byTrace: Record<string, number>,
): { groups: Float64Array; requests: Float64Array } | undefined {
  const requestW = Float64Array.from(t.traceIds, (id) => weightOf(byTrace, id));
  if (allOnes(requestW)) return undefined;
  const groupW = new Float64Array(groups).fill(1);
  for (let q = 0; q + 1 < t.nodeOffsets.length; q++)
    for (let i = t.nodeOffsets[q]!; i < t.nodeOffsets[q + 1]!; i++)
      if (groupOf[i]! >= 0) groupW[groupOf[i]!] = requestW[q]!;
  return { groups: groupW, requests: Float64Array.from(involved, (q) => requestW[q]!) };
}

/** The involved requests' recorded durations, ms. */
export function recordedRequestMs(t: RequestTrees, involved: Uint32Array): Float64Array {
  // A loop: TypedArray.from with a map function cost ~150 ms at 1M requests (V8 calls the
  // function per value), on the calling thread of a split answer while its threads waited.
  const out = new Float64Array(involved.length);
  const { durationMs, nodeOffsets } = t;
  for (let k = 0; k < out.length; k++) out[k] = durationMs[nodeOffsets[involved[k]!]!]!;
  return out;
}

/**
 * The closed-loop model re-times every request of a replay, indexed by request; the plan
 * replays only the involved ones. Requests without a call on the edge keep their recorded time.
 */
export function loopAdjust(
  t: RequestTrees,
  involved: Uint32Array,
  apply: (requestMs: Float64Array) => void,
): (involvedMs: Float64Array) => void {
  const all = new Float64Array(t.nodeOffsets.length - 1);
  return (involvedMs) => {
    for (let q = 0; q < all.length; q++) all[q] = t.durationMs[t.nodeOffsets[q]!]!;
    for (let k = 0; k < involved.length; k++) all[involved[k]!] = involvedMs[k]!;
    apply(all);
    for (let k = 0; k < involved.length; k++) involvedMs[k] = all[involved[k]!]!;
  };
}

/**
 * Trace weights of sampled data per target group and per involved request (weightsOf). The
 * plan does not keep which request a group belongs to, so the first implementation's
 * preparation (same group numbering) supplies it; only sampled data pays for it.
 */
export function weightsFor(
  t: RequestTrees,
  mask: Uint8Array,
  isPool: boolean,
  pr: { groups: number; involved: Uint32Array },
  byTrace: Record<string, number>,
): { groups: Float64Array; requests: Float64Array } | undefined {
  if (allOnes(Float64Array.from(t.traceIds, (id) => weightOf(byTrace, id)))) return undefined;
  const prep = prepareRequests(t, { target: mask, perCall: isPool });
  return weightsOf(t, prep.groupOf, pr.groups, pr.involved, byTrace);
}
