/**
 * Children lists (CSR, by recorded start) of the nodes of a set of requests, children first.
 */

import type { Arena } from '../arena';
import type { RequestTrees } from '../trees';

/**
 * Children CSR (by recorded start, then end) and the nodes with children, children first.
 * O(nodes), plus a sort of the children of a parent whose storage order is not start order.
 */
export function childrenOf(
  t: RequestTrees,
  total: number,
  arena: Arena,
): {
  start: Uint32Array;
  list: Uint32Array;
  internal: Uint32Array;
  most: number;
} {
  const n = t.parent.length;
  const parent = t.parent;
  // Counting sort by parent, filled backwards so each parent's children keep node order and
  // `start` ends up holding each parent's first slot (no second cursor array).
  const start = arena.u32(n + 1);
  for (let i = 0; i < n; i++) if (parent[i]! >= 0) start[parent[i]!]!++;
  let sum = 0;
  for (let i = 0; i < n; i++) start[i] = sum += start[i]!;
  start[n] = total;
  const list = arena.u32(total);
  for (let i = n - 1; i >= 0; i--) if (parent[i]! >= 0) list[--start[parent[i]!]!] = i;
  let most = 0;
  let internals = 0;
  const startMs = t.startMs;
  const durationMs = t.durationMs;
  for (let p = 0; p < n; p++) {
    const a = start[p]!;
    const b = start[p + 1]!;
    if (b === a) continue;
    internals++;
    if (b - a > most) most = b - a;
    // Inline check (a call per parent costs more than the check): start order, then end.
    let inOrder = true;
    for (let k = a + 1; k < b && inOrder; k++) {
      const x = list[k - 1]!;
      const y = list[k]!;
      const sx = startMs[x]!;
      const sy = startMs[y]!;
      inOrder = !(sx > sy) && !(sx === sy && sx + durationMs[x]! > sy + durationMs[y]!);
    }
    if (!inOrder) sortChildren(list, a, b, startMs, durationMs);
  }
  return { start, list, internal: childrenFirst(t, start, list, internals), most };
}

/** By recorded start, then end, then node: one order however the sort proceeds. */
function childOrder(x: number, y: number, startMs: Float64Array, durationMs: Float64Array): number {
  return (
    startMs[x]! - startMs[y]! ||
    startMs[x]! + durationMs[x]! - (startMs[y]! + durationMs[y]!) ||
    x - y
  );
}

/**
 * Sorts list[a, b) by childOrder. Few children (the common case: a pool's tied starts):
 * insertion sort in place, no allocation; many: the array sort.
 */
function sortChildren(
  list: Uint32Array,
  a: number,
  b: number,
  startMs: Float64Array,
  durationMs: Float64Array,
): void {
  if (b - a > 32) {
    const kids = Array.from(list.subarray(a, b)).sort((x, y) =>
      childOrder(x, y, startMs, durationMs),
    );
    list.set(kids, a);
    return;
  }
  for (let i = a + 1; i < b; i++) {
    const x = list[i]!;
    let j = i;
    while (j > a && childOrder(list[j - 1]!, x, startMs, durationMs) > 0) {
      list[j] = list[j - 1]!;
      j--;
    }
    list[j] = x;
  }
}

/**
 * The nodes with children, children first. When every parent precedes its children (the usual
 * storage order), that is the reverse node order; otherwise a breadth-first order from the
 * roots, reversed.
 */
function childrenFirst(
  t: RequestTrees,
  start: Uint32Array,
  list: Uint32Array,
  internals: number,
): Uint32Array {
  const n = t.parent.length;
  const out = new Uint32Array(internals);
  let ordered = true;
  for (let i = 0; i < n && ordered; i++) if (t.parent[i]! >= i) ordered = false;
  let m = 0;
  if (ordered) {
    for (let i = n - 1; i >= 0; i--) if (start[i] !== start[i + 1]) out[m++] = i;
    return out;
  }
  const bfs = new Uint32Array(n);
  let head = 0;
  let tail = 0;
  for (let i = 0; i < n; i++) if (t.parent[i]! < 0) bfs[tail++] = i;
  while (head < tail) {
    const p = bfs[head++]!;
    for (let k = start[p]!; k < start[p + 1]!; k++) bfs[tail++] = list[k]!;
  }
  for (let i = tail - 1; i >= 0; i--) if (start[bfs[i]!] !== start[bfs[i]! + 1]) out[m++] = bfs[i]!;
  return out;
}
