/** The columns a shape is made of (RequestTrees': not imported, request/trees/trees.ts imports this). */
interface ShapeColumns {
  nodeOffsets: Uint32Array;
  parent: Int32Array;
  edge: Int32Array;
  structure: Uint8Array;
  concurrency: Uint32Array;
}

/** Node i's parent within its request [a, a + m), -1 for none (a root, or a parent outside). */
export function localParent(t: ShapeColumns, a: number, m: number, i: number): number {
  const p = t.parent[a + i]! - a;
  return p >= 0 && p < m ? p : -1;
}

/** A hash of request [a, a + m)'s shape: its nodes' local parents, edges, structures, concurrencies. */
export function shapeHash(t: ShapeColumns, a: number, m: number): number {
  let h = m | 0;
  for (let i = 0; i < m; i++) {
    const g = a + i;
    h = Math.imul(h ^ localParent(t, a, m, i), 0x9e3779b1);
    h = Math.imul(h ^ t.edge[g]!, 0x85ebca6b);
    h = Math.imul(h ^ (t.structure[g]! | (t.concurrency[g]! << 3)), 0xc2b2ae35);
  }
  return h;
}

/** Whether requests at a and b (m nodes each) have one shape. */
function sameShape(t: ShapeColumns, a: number, b: number, m: number): boolean {
  const { edge, structure, concurrency } = t;
  for (let i = 0; i < m; i++) {
    if (edge[a + i] !== edge[b + i] || structure[a + i] !== structure[b + i]) return false;
    if (concurrency[a + i] !== concurrency[b + i]) return false;
    if (localParent(t, a, m, i) !== localParent(t, b, m, i)) return false;
  }
  return true;
}

/**
 * Numbers the requests' shapes (RequestTrees.shape): requests get one number exactly when they
 * have the same nodes with the same local parents, edges, structures and concurrencies. Computed
 * once when the trees are built, so every answer's plan finds a request's shape program by its
 * number instead of comparing its nodes (request/plan/shape-book.ts): ~0.1 s of a 1M-request
 * plan. O(nodes).
 */
export function requestShapes(t: ShapeColumns): Int32Array {
  const R = t.nodeOffsets.length - 1;
  const out = new Int32Array(Math.max(0, R));
  // Per hash, the shapes with it: [number, its first request's node offset, node count, ...].
  const byHash = new Map<number, number[]>();
  let next = 0;
  for (let q = 0; q < R; q++) {
    const a = t.nodeOffsets[q]!;
    const m = t.nodeOffsets[q + 1]! - a;
    const h = shapeHash(t, a, m);
    const list = byHash.get(h);
    let id = -1;
    if (list)
      for (let k = 0; k < list.length && id < 0; k += 3)
        if (list[k + 2] === m && sameShape(t, a, list[k + 1]!, m)) id = list[k]!;
    if (id < 0) {
      id = next++;
      if (list) list.push(id, a, m);
      else byHash.set(h, [id, a, m]);
    }
    out[q] = id;
  }
  return out;
}
