/**
 * A capacity preview: the fit restricted to a seeded uniform sample of whole requests, so a
 * control being dragged is answered from a few thousand requests rather than every one (the
 * dashboard's capacity page, issue 29). The model (servers, holds, windows and their loads) stays
 * the whole recording's; only the calls re-timed and read shrink, and simulations are shorter
 * (predict.ts, `fit.preview`). Predicting on it is O(sampled nodes + simulations).
 */

import { SeededRandom } from '../random';
import type { RequestTrees } from '../whatif';
import type { PreparedCapacity } from './answer';
import type { CallIndex } from './calls';
import { arrivalColumns, nodeColumns } from './fit';
import { childrenOf } from './retime';

/** Requests a preview re-times by default (tens of ms on the `microservices` preset). */
export const PREVIEW_REQUESTS = 5000;

/** Indices of `m` distinct requests of `n` (Floyd's algorithm), ascending. */
function pick(n: number, m: number, seed: number): Uint32Array {
  const rng = new SeededRandom(seed);
  const chosen = new Set<number>();
  for (let j = n - m; j < n; j++) {
    const r = Math.floor(rng.float() * (j + 1));
    chosen.add(chosen.has(r) ? j : r);
  }
  return Uint32Array.from(chosen).sort();
}

/** Per old node its new index (-1: not sampled), and the new node count. */
function renumber(t: RequestTrees, requests: Uint32Array): { to: Int32Array; n: number } {
  const to = new Int32Array(t.parent.length).fill(-1);
  let n = 0;
  for (const q of requests)
    for (let i = t.nodeOffsets[q]!; i < t.nodeOffsets[q + 1]!; i++) to[i] = n++;
  return { to, n };
}

/** Takes the sampled nodes of a per-node column, in order. */
function take<A extends Float64Array | Int32Array | Uint32Array | Uint8Array>(
  a: A,
  to: Int32Array,
  out: A,
): A {
  for (let i = 0; i < to.length; i++) if (to[i]! >= 0) out[to[i]!] = a[i]!;
  return out;
}

function sliceTrees(
  t: RequestTrees,
  requests: Uint32Array,
  to: Int32Array,
  n: number,
): RequestTrees {
  const nodeOffsets = new Uint32Array(requests.length + 1);
  requests.forEach((q, r) => {
    nodeOffsets[r + 1] = nodeOffsets[r]! + t.nodeOffsets[q + 1]! - t.nodeOffsets[q]!;
  });
  const parent = new Int32Array(n);
  for (let i = 0; i < to.length; i++)
    if (to[i]! >= 0) parent[to[i]!] = t.parent[i]! >= 0 ? to[t.parent[i]!]! : -1;
  return {
    nodeOffsets,
    requestStartMs: Float64Array.from(requests, (q) => t.requestStartMs[q]!),
    traceIds: Array.from(requests, (q) => t.traceIds[q]!),
    parent,
    startMs: take(t.startMs, to, new Float64Array(n)),
    durationMs: take(t.durationMs, to, new Float64Array(n)),
    edge: take(t.edge, to, new Int32Array(n)),
    host: take(t.host, to, new Uint32Array(n)),
    mode: take(t.mode, to, new Uint32Array(n)),
    structure: take(t.structure, to, new Uint8Array(n)),
    concurrency: take(t.concurrency, to, new Uint32Array(n)),
    edges: t.edges,
    hosts: t.hosts,
    modes: t.modes,
    ...(t.shape ? { shape: Int32Array.from(requests, (q) => t.shape![q]!) } : {}),
  };
}

function sliceIndex(ix: CallIndex, requests: Uint32Array, to: Int32Array, n: number): CallIndex {
  const request = new Uint32Array(n);
  const newRequest = new Map<number, number>();
  requests.forEach((q, r) => newRequest.set(q, r));
  for (let i = 0; i < to.length; i++)
    if (to[i]! >= 0) request[to[i]!] = newRequest.get(ix.request[i]!)!;
  return {
    instance: take(ix.instance, to, new Int32Array(n)),
    request,
    services: ix.services,
    // Renumbering keeps the order, so each instance's calls stay in arrival order.
    instances: ix.instances.map((x) => {
      let c = 0;
      for (const i of x.nodes) if (to[i]! >= 0) c++;
      const nodes = new Uint32Array(c);
      let j = 0;
      for (const i of x.nodes) if (to[i]! >= 0) nodes[j++] = to[i]!;
      return { service: x.service, host: x.host, nodes };
    }),
    rootOf: Array.from(requests, (q) => ix.rootOf[q]!),
  };
}

/**
 * The fit restricted to `count` requests (all when there are fewer) drawn with a generator
 * seeded by `seed`, marked as a preview (`fit.preview.of`: the whole fit's requests). Its own
 * simulation cache. O(nodes) once; predictions on it then cost O(sampled nodes).
 */
export function sampleCapacity(p: PreparedCapacity, count: number, seed = 1): PreparedCapacity {
  const f = p.fit;
  const all = f.trees.nodeOffsets.length - 1;
  const requests = pick(all, Math.max(1, Math.min(all, Math.floor(count))), seed);
  const { to, n } = renumber(f.trees, requests);
  const trees = sliceTrees(f.trees, requests, to, n);
  const index = sliceIndex(f.index, requests, to, n);
  // The fit keeps these per instance only: per node first, then the sampled nodes'.
  const node = nodeColumns(f);
  const visit = {
    waitMs: take(node.waitMs, to, new Float64Array(n)),
    windowOf: take(node.windowOf, to, new Int32Array(n)),
    visitFirst: take(node.visitFirst, to, new Uint8Array(n)),
    visitWaitMs: take(node.visitWaitMs, to, new Float64Array(n)),
  };
  return {
    fit: {
      ...f,
      trees,
      index,
      sims: new Map(),
      arrival: arrivalColumns(index, visit),
      ...(f.cpuRank ? { cpuRank: take(f.cpuRank, to, new Float64Array(n)) } : {}),
      preview: { of: all },
    },
    children: childrenOf(trees),
  };
}
