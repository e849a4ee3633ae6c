/**
 * A shape program's node order and the scratch it runs on.
 */

import type { RequestTrees } from '../trees';
import type { Shape } from './shape';
import { sortKids } from './blocks';

/** Per-request scratch of a shape's run, and where the request's new time comes from. */
export class ShapeRun {
  slot: Int32Array;
  cval: Float64Array;
  /**
   * The request's node in each of the program's places: itself, except where tied children
   * came in another order (see permute); reset after such a request.
   */
  map: Int32Array;
  /** permute's children in the general path's order. */
  kids: Int32Array;
  permuted = false;
  kind = 0;
  arg = 0;
  val = 0;
  constructor(widest: number) {
    this.slot = new Int32Array(widest);
    this.cval = new Float64Array(widest);
    this.map = Int32Array.from({ length: widest }, (_, i) => i);
    this.kids = new Int32Array(widest);
  }
}

/**
 * Whether every checked parent's children are in recorded start order (then end), as planned,
 * or come in another order that only swaps interchangeable leaves (permute). Returns the
 * position after the checks, or -1: the general path plans this request.
 */
export function inOrder(t: RequestTrees, a: number, S: Shape, r: ShapeRun): number {
  const prog = S.prog;
  const s = t.startMs;
  const d = t.durationMs;
  let at = 1;
  for (let c = prog[0]!; c > 0; c--) {
    const len = prog[at++]!;
    for (let k = 1; k < len; k++) {
      const x = a + prog[at + k - 1]!;
      const y = a + prog[at + k]!;
      if (s[x]! > s[y]! || (s[x] === s[y] && s[x]! + d[x]! > s[y]! + d[y]!)) {
        if (!permute(t, a, S, at, len, r)) return -1;
        break;
      }
    }
    at += len;
  }
  return at;
}

/**
 * Children [at, at + len) of the program in the order the general path puts them (recorded
 * start, then end, then node: request/replay/children.ts's order), written into r.map, when every
 * child that moves is a leaf taking the place of a leaf on the same edge with the same
 * structure and concurrency: the program then plans the request as the general path does, with
 * its nodes read through the map. The common case: a pool's calls sent at the same instant.
 */
function permute(
  t: RequestTrees,
  a: number,
  S: Shape,
  at: number,
  len: number,
  r: ShapeRun,
): boolean {
  const { prog, leaf } = S;
  const kids = r.kids;
  kids.set(prog.subarray(at, at + len));
  sortKids(t, a, kids, 0, len);
  const { edge, structure, concurrency } = t;
  for (let k = 0; k < len; k++) {
    const x = prog[at + k]!;
    const y = kids[k]!;
    if (x === y) continue;
    if (leaf[x] !== 1 || leaf[y] !== 1) return false;
    const gx = a + x;
    const gy = a + y;
    if (edge[gx] !== edge[gy] || structure[gx] !== structure[gy]) return false;
    if (concurrency[gx] !== concurrency[gy]) return false;
  }
  for (let k = 0; k < len; k++) r.map[prog[at + k]!] = kids[k]!;
  r.permuted = true;
  return true;
}

export function resetMap(r: ShapeRun, m: number): void {
  for (let i = 0; i < m; i++) r.map[i] = i;
  r.permuted = false;
}
