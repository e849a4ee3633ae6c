import { fisherExactTwoSided, riskRatioKatz } from './stats';
import type { AttributeColumn } from './types';

/**
 * Confounding hints for attribution. Marginal tests cannot tell a cause from a value that
 * merely contains it: when the sick host sits in zone c, zone c has more stragglers too. A
 * cause R (value v) is "explained by" a cause S of another dimension (value w) when, among the
 * calls without w, v is no longer significant (Fisher p >= alpha) or no longer raises the risk
 * (RR <= 1). When every call with v also has w (v nested in w) the test is impossible and S does
 * not explain R: the narrower value stays the candidate.
 */

export interface CauseCandidate {
  /** Index of the dimension's column. */
  col: number;
  /** Value index in that column. */
  v: number;
  calls: number;
  stragglers: number;
  pValue: number;
  label: string;
}

/**
 * For each candidate, the label of the strongest (smallest p) cause of another dimension that
 * explains it, else null; in candidate order. `tail[i]` = 1 when call i is a tail straggler.
 * O(sum over pairs of the calls with the explaining value).
 */
export function explainCauses(
  cols: readonly AttributeColumn[],
  members: (col: number) => Uint32Array[],
  causes: readonly CauseCandidate[],
  tail: Uint8Array,
  totals: { calls: number; tailFanouts: number },
  alpha: number,
): (string | null)[] {
  const byStrength = [...causes].sort((a, b) => a.pValue - b.pValue);
  return causes.map((r) => {
    const colR = cols[r.col] as AttributeColumn;
    for (const s of byStrength) {
      if (s.col === r.col) continue;
      let both = 0;
      let bothTail = 0;
      for (const i of members(s.col)[s.v] ?? []) {
        if (colR.index[i] === r.v) {
          both++;
          bothTail += tail[i] as number;
        }
      }
      const n1 = r.calls - both;
      if (n1 === 0) continue;
      const a = r.stragglers - bothTail;
      const n2 = totals.calls - r.calls - (s.calls - both);
      const c = totals.tailFanouts - r.stragglers - (s.stragglers - bothTail);
      const p = fisherExactTwoSided(a, n1 - a, c, n2 - c);
      const rr = riskRatioKatz(a, n1, c, n2).ratio;
      if (p >= alpha || rr === null || rr <= 1) return s.label;
    }
    return null;
  });
}
