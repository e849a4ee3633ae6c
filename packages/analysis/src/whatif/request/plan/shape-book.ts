/**
 * The shapes met so far in one plan, and their compiled programs (bounded).
 */

import type { RequestTrees } from '../trees';
import type { Shape } from './shape';
import { shapeHash } from '../trees';

/**
 * Shapes met so far in one plan. Bounded: at most MAX shapes seen, programs for requests of at
 * most MAX_NODES nodes (a bigger request is rare and planned the general way), at most
 * MAX_STORED nodes' programs in all (~50 MB).
 */
export class ShapeBook {
  private last: Shape | undefined;
  private readonly byHash = new Map<number, Shape | number>();
  private stored = 0;
  static readonly MAX = 4096;
  static readonly MAX_NODES = 4096;
  static readonly MAX_STORED = 1 << 20;

  /**
   * The program of request q's shape (nodes [a, a + m)), if compiled. Trees that number their
   * shapes (RequestTrees.shape) are looked up by number; others by their signature.
   */
  match(t: RequestTrees, q: number, a: number, m: number): Shape | undefined {
    if (t.shape) {
      const s = this.byHash.get(t.shape[q]!);
      return typeof s === 'object' ? s : undefined;
    }
    const l = this.last;
    if (l?.m === m && sameShape(t, a, l)) return l;
    const s = this.byHash.get(shapeHash(t, a, m));
    if (typeof s !== 'object' || s.m !== m || !sameShape(t, a, s)) return undefined;
    this.last = s;
    return s;
  }

  private key(t: RequestTrees, q: number, a: number, m: number): number {
    return t.shape ? t.shape[q]! : shapeHash(t, a, m);
  }

  /**
   * Whether to compile the shape of a request just planned the general way: from its second
   * sight, for some tries (a try fails when this request's children were not in node order,
   * as tied starts ordered by end often leave them).
   */
  wanted(t: RequestTrees, q: number, a: number, m: number): boolean {
    const h = this.key(t, q, a, m);
    const s = this.byHash.get(h);
    if (typeof s === 'object') return false; // a hash collision, or this request's order differed
    if (s === undefined) {
      if (this.byHash.size < ShapeBook.MAX) this.byHash.set(h, 1);
      return false;
    }
    if (s > 64 || m > ShapeBook.MAX_NODES || this.stored + m > ShapeBook.MAX_STORED) return false;
    this.byHash.set(h, s + 1);
    return true;
  }

  add(t: RequestTrees, q: number, a: number, s: Shape | undefined): void {
    if (s) {
      this.byHash.set(this.key(t, q, a, s.m), s);
      this.stored += s.m;
      this.last = s;
    }
  }
}

function sameShape(t: RequestTrees, a: number, s: Shape): boolean {
  const { sig, m } = s;
  const { parent, edge, structure, concurrency } = t;
  for (let i = 0, g = a; i < m; i++, g++) {
    const lp = sig[4 * i]!;
    const p = parent[g]! - a;
    // A parent outside the request counts as none (localParent).
    if (p !== lp && (lp !== -1 || (p >= 0 && p < m))) return false;
    if (sig[4 * i + 1] !== edge[g] || sig[4 * i + 2] !== structure[g]) return false;
    if (sig[4 * i + 3] !== concurrency[g]) return false;
  }
  return true;
}
