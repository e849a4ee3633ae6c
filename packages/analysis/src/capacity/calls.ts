/**
 * The calls of request trees grouped by the service and instance that answered them, with their
 * absolute times and own (self) time: the capacity model's input.
 */

import type { RequestTrees } from '../whatif';

/** Per call node of the trees (-1 / NaN for roots): what the capacity fit reads. */
export interface CallIndex {
  /** Per node: service index into `services`, -1 for a root. */
  service: Int32Array;
  /** Per node: instance index into `instances`, -1 for a root. */
  instance: Int32Array;
  /** Per node: request index. */
  request: Uint32Array;
  /** Per node: epoch ms of its start (arrival) and end (departure). */
  arrivalMs: Float64Array;
  departureMs: Float64Array;
  /** Per node: its duration minus the time covered by its children (own time), ms. */
  ownMs: Float64Array;
  services: string[];
  /** Per instance: its service and host name; nodes of the instance in arrival order. */
  instances: { service: number; host: string; nodes: Uint32Array }[];
  /** Per request: its root operation (`service/operation` of the root's callers), or ''. */
  rootOf: string[];
}

/** Indexes the calls of the trees by service and instance. O(nodes log nodes). */
export function indexCalls(t: RequestTrees): CallIndex {
  const n = t.parent.length;
  const service = new Int32Array(n).fill(-1);
  const instance = new Int32Array(n).fill(-1);
  const request = new Uint32Array(n);
  const arrivalMs = new Float64Array(n);
  const departureMs = new Float64Array(n);
  const ownMs = Float64Array.from(t.durationMs);
  const services: string[] = [];
  const serviceIds = new Map<string, number>();
  const instanceIds = new Map<string, number>();
  const members: number[][] = [];
  const instances: { service: number; host: string; nodes: Uint32Array }[] = [];
  const requests = t.nodeOffsets.length - 1;
  const rootOf = new Array<string>(requests).fill('');
  for (let q = 0; q < requests; q++) {
    const base = t.requestStartMs[q]!;
    for (let i = t.nodeOffsets[q]!; i < t.nodeOffsets[q + 1]!; i++) {
      request[i] = q;
      arrivalMs[i] = base + t.startMs[i]!;
      departureMs[i] = arrivalMs[i]! + t.durationMs[i]!;
      const e = t.edge[i]!;
      if (e < 0) continue;
      const edge = t.edges[e]!;
      if (t.parent[i] === t.nodeOffsets[q] && rootOf[q] === '')
        rootOf[q] = `${edge.parentService}/${edge.parentOperation}`;
      let s = serviceIds.get(edge.leafService);
      if (s === undefined) {
        s = services.length;
        services.push(edge.leafService);
        serviceIds.set(edge.leafService, s);
      }
      const host = t.hosts[t.host[i]!] ?? '';
      const key = `${s}\u0000${host}`;
      let k = instanceIds.get(key);
      if (k === undefined) {
        k = instances.length;
        instances.push({ service: s, host, nodes: new Uint32Array(0) });
        members.push([]);
        instanceIds.set(key, k);
      }
      service[i] = s;
      instance[i] = k;
      members[k]!.push(i);
    }
  }
  subtractChildren(t, ownMs);
  members.forEach((m, k) => {
    m.sort((a, b) => arrivalMs[a]! - arrivalMs[b]! || a - b);
    instances[k]!.nodes = Uint32Array.from(m);
  });
  return { service, instance, request, arrivalMs, departureMs, ownMs, services, instances, rootOf };
}

/** own[p] -= the union of its children's intervals (clipped to p). O(nodes log children). */
function subtractChildren(t: RequestTrees, own: Float64Array): void {
  const kids = new Map<number, number[]>();
  for (let i = 0; i < t.parent.length; i++) {
    const p = t.parent[i]!;
    if (p < 0) continue;
    const list = kids.get(p);
    if (list) list.push(i);
    else kids.set(p, [i]);
  }
  for (const [p, list] of kids) {
    list.sort((a, b) => t.startMs[a]! - t.startMs[b]!);
    const p0 = t.startMs[p]!;
    const p1 = p0 + t.durationMs[p]!;
    let covered = 0;
    let lo = -Infinity;
    let hi = -Infinity;
    for (const c of list) {
      const s = Math.max(p0, t.startMs[c]!);
      const e = Math.min(p1, t.startMs[c]! + t.durationMs[c]!);
      if (e <= s) continue;
      if (s > hi) {
        if (hi > lo) covered += hi - lo;
        lo = s;
        hi = e;
      } else if (e > hi) hi = e;
    }
    if (hi > lo) covered += hi - lo;
    own[p] = Math.max(0, own[p]! - covered);
  }
}
