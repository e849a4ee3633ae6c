/**
 * Structure and concurrency of every group (one parent's calls on one edge) of the trees.
 */

import { SEND_JITTER_NS } from '../../../conventions';
import { STRUCTURE_CODE } from './trees';

const JITTER = Number(SEND_JITTER_NS);

/**
 * Structure and concurrency of every group (one parent's calls on one edge), as structure.ts
 * classifyCalls on the calls' [start, end) in ns.
 */
export function classifyGroups(
  out: { parent: Int32Array; edge: Int32Array; structure: Uint8Array; concurrency: Uint32Array },
  base: number,
  nodes: number,
  startOf: (node: number) => number,
  durOf: (node: number) => number,
): void {
  const groups = new Map<number, number[]>();
  for (let j = 1; j < nodes; j++) {
    const key = (out.parent[base + j]! - base) * 2 ** 24 + out.edge[base + j]!;
    const g = groups.get(key);
    if (g) g.push(j);
    else groups.set(key, [j]);
  }
  for (const g of groups.values()) {
    const { structure, concurrency } = classify(g.map(startOf), g.map(durOf));
    for (const j of g) {
      out.structure[base + j] = structure;
      out.concurrency[base + j] = concurrency;
    }
  }
}

function classify(
  starts: number[],
  durations: number[],
): { structure: number; concurrency: number } {
  const n = starts.length;
  if (n <= 1) return { structure: STRUCTURE_CODE.single, concurrency: 1 };
  // Sweep over sorted starts and ends: ends at or before a start close first (half-open).
  const st = Float64Array.from(starts).sort();
  const en = Float64Array.from(starts, (x, i) => x + durations[i]!).sort();
  let open = 0;
  let most = 1;
  for (let i = 0, j = 0; i < n; i++) {
    while (j < n && en[j]! <= st[i]!) {
      open--;
      j++;
    }
    open++;
    if (open > most) most = open;
  }
  if (most === 1) return { structure: STRUCTURE_CODE.sequential, concurrency: 1 };
  if (most === n) return { structure: STRUCTURE_CODE.parallel, concurrency: most };
  let lo = starts[0]!;
  let hi = lo;
  for (const x of starts) {
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  return {
    structure: hi - lo <= JITTER ? STRUCTURE_CODE.parallel : STRUCTURE_CODE.pool,
    concurrency: most,
  };
}
