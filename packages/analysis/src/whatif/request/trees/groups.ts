/**
 * Structure and concurrency of every group (one parent's calls on one edge) of the trees.
 */

import { SEND_JITTER_NS } from '../../../conventions';
import { STRUCTURE_CODE } from './trees';

const JITTER = Number(SEND_JITTER_NS);

/** Working arrays of classifyGroups, grown as needed (one thread builds one tree at a time). */
let keys = new Float64Array(64);
let order = new Uint32Array(64);
let st = new Float64Array(64);
let en = new Float64Array(64);

function ensure(n: number): void {
  if (keys.length >= n) return;
  const size = 2 ** Math.ceil(Math.log2(n));
  keys = new Float64Array(size);
  order = new Uint32Array(size);
  st = new Float64Array(size);
  en = new Float64Array(size);
}

/** Sorts a[from, to) ascending in place: insertion sort for the few calls of most groups. */
function sortRange(a: Float64Array, from: number, to: number): void {
  if (to - from > 32) {
    a.subarray(from, to).sort();
    return;
  }
  for (let i = from + 1; i < to; i++) {
    const x = a[i]!;
    let j = i - 1;
    while (j >= from && a[j]! > x) {
      a[j + 1] = a[j]!;
      j--;
    }
    a[j + 1] = x;
  }
}

/**
 * Structure and concurrency of every group (one parent's calls on one edge), as structure.ts
 * classifyCalls on the calls' [start, end) in ns. The nodes are ordered by group in typed
 * arrays (no map or array per group: this ran once per request of the whole-request what-if,
 * a third of building the trees of 30,000 requests).
 */
export function classifyGroups(
  out: { parent: Int32Array; edge: Int32Array; structure: Uint8Array; concurrency: Uint32Array },
  base: number,
  nodes: number,
  startOf: (node: number) => number,
  durOf: (node: number) => number,
): void {
  const m = nodes - 1;
  if (m <= 0) return;
  ensure(m);
  for (let j = 1; j < nodes; j++) {
    keys[j - 1] = (out.parent[base + j]! - base) * 2 ** 24 + out.edge[base + j]!;
    order[j - 1] = j;
  }
  // Nodes by group key (the order inside a group does not change its classification).
  if (m <= 32) {
    for (let i = 1; i < m; i++) {
      const o = order[i]!;
      const k = keys[o - 1]!;
      let j = i - 1;
      while (j >= 0 && keys[order[j]! - 1]! > k) {
        order[j + 1] = order[j]!;
        j--;
      }
      order[j + 1] = o;
    }
  } else {
    const sorted = Array.from(order.subarray(0, m)).sort((a, b) => keys[a - 1]! - keys[b - 1]!);
    order.set(sorted);
  }
  for (let from = 0; from < m;) {
    const key = keys[order[from]! - 1]!;
    let to = from + 1;
    while (to < m && keys[order[to]! - 1] === key) to++;
    for (let i = from; i < to; i++) {
      const j = order[i]!;
      const start = startOf(j);
      st[i] = start;
      en[i] = start + durOf(j);
    }
    const { structure, concurrency } = classify(from, to);
    for (let i = from; i < to; i++) {
      out.structure[base + order[i]!] = structure;
      out.concurrency[base + order[i]!] = concurrency;
    }
    from = to;
  }
}

/** One group's structure from its calls' starts and ends in st, en [from, to). */
function classify(from: number, to: number): { structure: number; concurrency: number } {
  const n = to - from;
  if (n <= 1) return { structure: STRUCTURE_CODE.single, concurrency: 1 };
  // The starts' range before they are sorted in place (min and max: order-free).
  let lo = st[from]!;
  let hi = lo;
  for (let i = from; i < to; i++) {
    const x = st[i]!;
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  // Sweep over sorted starts and ends: ends at or before a start close first (half-open).
  sortRange(st, from, to);
  sortRange(en, from, to);
  let open = 0;
  let most = 1;
  for (let i = from, j = from; i < to; i++) {
    while (j < to && en[j]! <= st[i]!) {
      open--;
      j++;
    }
    open++;
    if (open > most) most = open;
  }
  if (most === 1) return { structure: STRUCTURE_CODE.sequential, concurrency: 1 };
  if (most === n) return { structure: STRUCTURE_CODE.parallel, concurrency: most };
  return {
    structure: hi - lo <= JITTER ? STRUCTURE_CODE.parallel : STRUCTURE_CODE.pool,
    concurrency: most,
  };
}
