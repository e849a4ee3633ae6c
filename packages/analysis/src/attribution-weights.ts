import type { AttributeColumn, LeafCalls } from './types';
import { allOnes } from './weighted-quantile';

/**
 * Straggler attribution over sampled data (docs/analysis.md "Sampling"). Each call weighs its
 * fan-out's adjusted count (LeafCalls.weights): head sampling keeps or drops a trace, and so a
 * fan-out, whole. The descriptive figures become population estimates: `calls`, `stragglers`
 * (sums of weights, rounded), `trafficShare`, `stragglerShare`, and the totals. The tests
 * (Fisher's p, BH q, the Katz risk ratio and interval, cause, explainedBy) keep counting stored
 * calls: a sampled call is one observation, and counting it `weight` times would make the
 * tests as sure as if the whole population had been seen.
 */
export interface CallWeights {
  /** Per fan-out adjusted count. */
  fanout: Float64Array;
  /** Per call: its fan-out's adjusted count. */
  call: Float64Array;
  /** Sum over calls. */
  calls: number;
}

/** The weights of `calls`, or undefined when absent or all 1 (the unweighted path). O(calls). */
export function callWeights(calls: LeafCalls): CallWeights | undefined {
  const fw = calls.weights;
  if (fw === undefined || allOnes(fw)) return undefined;
  const off = calls.fanoutOffsets;
  const call = new Float64Array(calls.durationMs.length);
  let total = 0;
  for (let f = 0; f + 1 < off.length; f++) {
    const w = fw[f] as number;
    call.fill(w, off[f], off[f + 1]);
    total += w * ((off[f + 1] as number) - (off[f] as number));
  }
  return { fanout: fw, call, calls: total };
}

/** Weighted calls and tail stragglers per value of `col`. O(calls). */
export function weightedByValue(
  col: AttributeColumn,
  w: CallWeights,
  isTailStraggler: Uint8Array,
): { calls: Float64Array; stragglers: Float64Array } {
  const calls = new Float64Array(col.values.length);
  const stragglers = new Float64Array(col.values.length);
  for (let i = 0; i < col.index.length; i++) {
    const v = col.index[i] as number;
    const x = w.call[i] as number;
    calls[v] = (calls[v] as number) + x;
    if (isTailStraggler[i]) stragglers[v] = (stragglers[v] as number) + x;
  }
  return { calls, stragglers };
}

/** Replaces a row's descriptive counts and shares by their weighted estimates. */
export function weightRow(
  row: { calls: number; stragglers: number; trafficShare: number; stragglerShare: number },
  calls: number,
  stragglers: number,
  totals: { calls: number; tail: number },
): void {
  row.calls = Math.round(calls);
  row.stragglers = Math.round(stragglers);
  row.trafficShare = totals.calls === 0 ? 0 : calls / totals.calls;
  row.stragglerShare = totals.tail === 0 ? 0 : stragglers / totals.tail;
}
