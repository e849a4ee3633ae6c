/**
 * The plan's first pass: which requests call the target edge, and how much room they need.
 */

import type { RequestTrees } from '../trees';

/**
 * The plan's first pass over requests [from, to): which have a call on a target edge (`has`,
 * by request from `from`), how many target calls and such requests there are, and the most
 * nodes of a request. Counted first so the involved requests' columns are allocated once at
 * their size and the requests without a target call are skipped at once. O(nodes).
 */
export function countTargets(
  t: RequestTrees,
  target: Uint8Array,
  from: number,
  to: number,
): { has: Uint8Array; targets: number; widest: number; nInv: number } {
  const has = new Uint8Array(Math.max(0, to - from));
  let targets = 0;
  let widest = 1;
  let nInv = 0;
  const { edge, nodeOffsets, shape } = t;
  // Numbered shapes (RequestTrees.shape): a shape's target calls are counted once.
  const known = shape ? new Map<number, number>() : undefined;
  for (let q = from; q < to; q++) {
    const a = nodeOffsets[q]!;
    const z = nodeOffsets[q + 1]!;
    if (z - a > widest) widest = z - a;
    let k = known?.get(shape![q]!);
    if (k === undefined) {
      k = 0;
      for (let i = a; i < z; i++) {
        const e = edge[i]!;
        if (e >= 0 && target[e] === 1) k++;
      }
      known?.set(shape![q]!, k);
    }
    if (k > 0) {
      has[q - from] = 1;
      targets += k;
      nInv++;
    }
  }
  return { has, targets, widest, nInv };
}
