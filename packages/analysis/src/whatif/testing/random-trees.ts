/**
 * Random request trees with every structure the replay distinguishes (tests only; not exported).
 */

import { SeededRandom } from '../../random';
import type { RequestTrees } from '../request/trees';

/**
 * Random request trees: random depth and width, random edges (some repeated under one parent,
 * so groups form), structures, overlapping and tied starts, and (every other seed) nodes stored
 * out of parent-first order, so the breadth-first path is exercised too.
 */
export function randomTrees(seed: number, requests: number): RequestTrees {
  const rng = new SeededRandom(seed);
  const parent: number[] = [];
  const start: number[] = [];
  const dur: number[] = [];
  const edge: number[] = [];
  const structure: number[] = [];
  const conc: number[] = [];
  const offsets = [0];
  for (let q = 0; q < requests; q++) {
    const base = parent.length;
    const size = 1 + rng.below(14);
    const local: number[][] = [[0, -1, 0, 0]]; // [start, parent, structure, ...]
    for (let i = 1; i < size; i++) local.push([0, rng.below(i), 0, 0]);
    const starts = new Array<number>(size).fill(0);
    const durs = new Array<number>(size).fill(0);
    const edges = new Array<number>(size).fill(-1);
    const structs = new Array<number>(size).fill(0);
    const concs = new Array<number>(size).fill(1);
    durs[0] = 50 + rng.below(500);
    for (let i = 1; i < size; i++) {
      const p = local[i]![1]!;
      starts[i] = starts[p]! + rng.below(20) / 2; // ties on purpose
      durs[i] = rng.below(4) === 0 ? 0 : 1 + rng.float() * 60;
      edges[i] = rng.below(4);
      structs[i] = rng.below(4);
      concs[i] = 1 + rng.below(4);
    }
    const perm = Array.from({ length: size }, (_, i) => i);
    if (seed % 2 === 1)
      for (let i = size - 1; i > 0; i--) {
        const j = rng.below(i + 1);
        [perm[i], perm[j]] = [perm[j]!, perm[i]!];
      }
    const pos = new Array<number>(size);
    perm.forEach((node, at) => (pos[node] = at));
    for (const node of perm) {
      const p = local[node]![1]!;
      parent.push(p < 0 ? -1 : base + pos[p]!);
      start.push(starts[node]!);
      dur.push(durs[node]!);
      edge.push(edges[node]!);
      structure.push(structs[node]!);
      conc.push(concs[node]!);
    }
    offsets.push(parent.length);
  }
  const n = parent.length;
  return {
    nodeOffsets: Uint32Array.from(offsets),
    requestStartMs: Float64Array.from({ length: requests }, (_, q) => 1e12 + q * 7),
    traceIds: [],
    parent: Int32Array.from(parent),
    startMs: Float64Array.from(start),
    durationMs: Float64Array.from(dur),
    edge: Int32Array.from(edge),
    host: Uint32Array.from({ length: n }, (_, i) => i % 3),
    mode: new Uint32Array(n),
    structure: Uint8Array.from(structure),
    concurrency: Uint32Array.from(conc),
    edges: [0, 1, 2, 3].map((e) => ({
      parentService: 'p',
      parentOperation: 'op',
      leafService: `s${e}`,
      leafOperation: 'op',
    })),
    hosts: ['a', 'b', 'c'],
    modes: [''],
  };
}
