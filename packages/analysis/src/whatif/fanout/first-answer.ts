/**
 * All-leaves times of fan-outs that really sent duplicate calls (recorded hedges), to check the
 * replay against what happened.
 */

import type { LeafCalls } from '../../types';
import { ABSENT_ATTRIBUTE } from '../../conventions';
import { ownEntry } from '../../own-keys';

export interface FirstAnswerTimes {
  /** Per fan-out: max over groups of the group's earliest finishing time, ms. */
  allLeavesMs: Float64Array;
  /** Calls counted (not ignored). */
  calls: number;
  /** Calls beyond the first of their group (duplicates: hedges, retries). */
  duplicates: number;
  /** Calls skipped because `ignore` held (shadow requests). */
  ignored: number;
}

/**
 * The all-leaves finishing time of fan-outs that sent duplicate calls (hedged or tied requests
 * recorded for real): calls are grouped by the value of attribute `groupKey` (a shard id), a
 * group is answered by its earliest-finishing call, and the fan-out by its slowest group. Calls
 * whose `ignoreKey` attribute equals `ignoreValue` (shadow requests nobody waits for) are
 * skipped; calls without the group attribute form groups of their own. This is how a run with
 * a policy switched on is measured to compare with the simulator's prediction. O(calls).
 * Throws when `groupKey` is not among `calls.attributes`.
 */
export function firstAnswerAllLeavesMs(
  calls: LeafCalls,
  groupKey: string,
  ignore?: { key: string; value: string },
): FirstAnswerTimes {
  const group = ownEntry(calls.attributes, groupKey);
  if (!group) throw new Error(`the leaf calls carry no attribute ${groupKey}`);
  const ign = ignore ? ownEntry(calls.attributes, ignore.key) : undefined;
  const ignIndex = ign && ignore ? ign.values.indexOf(ignore.value) : -1;
  const off = calls.fanoutOffsets;
  const fanouts = off.length - 1;
  const out = new Float64Array(Math.max(0, fanouts));
  const best = new Map<number, number>();
  let counted = 0;
  let duplicates = 0;
  let ignored = 0;
  for (let f = 0; f < fanouts; f++) {
    best.clear();
    let solo = 0;
    for (let i = off[f]!; i < off[f + 1]!; i++) {
      if (ign && ign.index[i] === ignIndex) {
        ignored++;
        continue;
      }
      counted++;
      const fin = calls.startMs[i]! + calls.durationMs[i]!;
      const value = group.values[group.index[i]!];
      if (value === undefined || value === '' || value === ABSENT_ATTRIBUTE) {
        solo = Math.max(solo, fin);
        continue;
      }
      const g = group.index[i]!;
      const prev = best.get(g);
      if (prev === undefined) best.set(g, fin);
      else {
        duplicates++;
        if (fin < prev) best.set(g, fin);
      }
    }
    let max = solo;
    for (const v of best.values()) if (v > max) max = v;
    out[f] = max;
  }
  return { allLeavesMs: out, calls: counted, duplicates, ignored };
}
