/**
 * The calls of request trees grouped by the service and instance that answered them, with their
 * absolute times and own (self) time: the capacity model's input.
 */

import { sortedOrder, type RequestTrees } from '../whatif';
import type { Children } from './retime';

/** Per call node of the trees (-1 for roots): what the capacity fit reads. */
export interface CallIndex {
  /** Per node: instance index into `instances` (its service: instances[k].service), -1 for a root. */
  instance: Int32Array;
  /**
   * Per node: request index. A call's arrival is its request's start plus its start, its
   * departure that plus its duration, its own time ownTime's: read where used (fit.ts gather),
   * not kept per node (three columns of 8 bytes a call, read once).
   */
  request: Uint32Array;
  services: string[];
  /** Per instance: its service and host name; nodes of the instance in arrival order. */
  instances: { service: number; host: string; nodes: Uint32Array }[];
  /** Per request: its root operation (`service/operation` of the root's callers), or ''. */
  rootOf: string[];
}

/** (edge, host) pairs up to this many are looked up in a typed table (4 MB), more in a Map. */
const MAX_PAIR_TABLE = 1 << 20;

/**
 * Indexes the calls of the trees by service and instance, with each call's place among its
 * instance's calls (`local`: a pass in node order can then fill or read per-instance columns,
 * where a pass per instance in arrival order reads every cache line of a per-node column once
 * per instance). O(nodes).
 */
export function indexCalls(t: RequestTrees): { index: CallIndex; local: Uint32Array } {
  const n = t.parent.length;
  const instance = new Int32Array(n).fill(-1);
  const request = new Uint32Array(n);
  const services: string[] = [];
  const serviceIds = new Map<string, number>();
  // Per (edge, host) pair its instance + 1 (0: not met yet), found once per pair rather than
  // once per node: a typed table when the pairs are few enough, else a Map (one lookup per
  // node of a Map cost ~25 ms at 3M calls).
  const hostCount = Math.max(1, t.hosts.length);
  const pairCount = t.edges.length * hostCount;
  const table = pairCount <= MAX_PAIR_TABLE ? new Int32Array(pairCount) : undefined;
  const pairs = new Map<number, number>();
  // Per edge the root operation's name, made once per edge rather than once per request.
  const rootNames = new Array<string | undefined>(t.edges.length);
  const meta: { service: number; host: string }[] = [];
  const instanceIds = new Map<string, number>();
  const requests = t.nodeOffsets.length - 1;
  const rootOf = new Array<string>(requests).fill('');
  for (let q = 0; q < requests; q++) {
    const root = t.nodeOffsets[q]!;
    for (let i = root; i < t.nodeOffsets[q + 1]!; i++) {
      request[i] = q;
      const e = t.edge[i]!;
      if (e < 0) continue;
      if (t.parent[i] === root && rootOf[q] === '') {
        const edge = t.edges[e]!;
        rootOf[q] = rootNames[e] ??= `${edge.parentService}/${edge.parentOperation}`;
      }
      const pair = e * hostCount + t.host[i]!;
      let k = table ? table[pair]! - 1 : (pairs.get(pair) ?? -1);
      if (k < 0) {
        const name = t.edges[e]!.leafService;
        let s = serviceIds.get(name);
        if (s === undefined) {
          s = services.length;
          services.push(name);
          serviceIds.set(name, s);
        }
        const host = t.hosts[t.host[i]!] ?? '';
        const key = `${s}\u0000${host}`;
        const known = instanceIds.get(key);
        if (known === undefined) {
          k = meta.length;
          meta.push({ service: s, host });
          instanceIds.set(key, k);
        } else k = known;
        if (table) table[pair] = k + 1;
        else pairs.set(pair, k);
      }
      instance[i] = k;
    }
  }
  const local = new Uint32Array(n);
  return {
    index: {
      instance,
      request,
      services,
      instances: byInstance(meta, instance, t, request, local),
      rootOf,
    },
    local,
  };
}

/**
 * Each instance's nodes in arrival order (ties by node): grouped by instance in node order (a
 * counting sort, with their arrivals), then each group ordered by arrival (sortedOrder is
 * stable: ties stay in node order), the same order as one sort of all nodes by arrival, but
 * each sort's values fit in cache (one sort of 3M nodes' arrivals was ~0.2 s). Writes each
 * call's place in its instance's list to `local`.
 */
function byInstance(
  meta: { service: number; host: string }[],
  instance: Int32Array,
  t: RequestTrees,
  request: Uint32Array,
  local: Uint32Array,
): CallIndex['instances'] {
  const count = new Uint32Array(meta.length + 1);
  for (let i = 0; i < instance.length; i++) if (instance[i]! >= 0) count[instance[i]! + 1]!++;
  for (let k = 0; k < meta.length; k++) count[k + 1] = count[k + 1]! + count[k]!;
  const grouped = new Uint32Array(count[meta.length]!);
  const arrivals = new Float64Array(grouped.length);
  const at = count.slice(0, meta.length);
  for (let i = 0; i < instance.length; i++) {
    const k = instance[i]!;
    if (k < 0) continue;
    arrivals[at[k]!] = t.requestStartMs[request[i]!]! + t.startMs[i]!;
    grouped[at[k]!++] = i;
  }
  const all = new Uint32Array(grouped.length);
  for (let k = 0; k < meta.length; k++) {
    const a = count[k]!;
    const b = count[k + 1]!;
    // Already in arrival order in node order (requests stored by time, one call each): the
    // stable sort's order is the identity, found in one pass.
    let sorted = true;
    for (let i = a + 1; i < b && sorted; i++) sorted = arrivals[i - 1]! <= arrivals[i]!;
    if (sorted) {
      for (let r = 0; r < b - a; r++) {
        const i = grouped[a + r]!;
        all[a + r] = i;
        local[i] = r;
      }
      continue;
    }
    const v = arrivals.subarray(a, b);
    // Insertion only where few calls are out of place (a chain's calls, sent over its
    // request's time while later requests start, are many: the radix sort then, without an
    // insertion attempt first).
    let descents = 0;
    for (let i = 1; i < v.length; i++) if (v[i]! < v[i - 1]!) descents++;
    const order =
      (descents <= v.length >> 4 ? insertionOrder(v, 2 * v.length) : undefined) ?? sortedOrder(v);
    for (let r = 0; r < order.length; r++) {
      const i = grouped[a + order[r]!]!;
      all[a + r] = i;
      local[i] = r;
    }
  }
  return meta.map((m, k) => ({ ...m, nodes: all.subarray(count[k], count[k + 1]) }));
}

/**
 * The stable ascending order of nearly sorted values (each instance's calls in node order:
 * requests stored by their start, each call a little after its request's start) by insertion,
 * the same order as sortedOrder (ties in index order, -0 equal to 0); undefined past `maxMoves`
 * moves or at a NaN (then sortedOrder). O(n + moves): the radix sort of 3M arrivals was ~0.15 s.
 */
function insertionOrder(v: Float64Array, maxMoves: number): Uint32Array | undefined {
  const n = v.length;
  const order = new Uint32Array(n);
  const keys = new Float64Array(n);
  let moves = 0;
  for (let i = 0; i < n; i++) {
    const x = v[i]!;
    if (x !== x) return undefined;
    let j = i - 1;
    while (j >= 0 && keys[j]! > x) {
      if (++moves > maxMoves) return undefined;
      keys[j + 1] = keys[j]!;
      order[j + 1] = order[j]!;
      j--;
    }
    keys[j + 1] = x;
    order[j + 1] = i;
  }
  return order;
}

/**
 * Node p's own time: its duration less the union of its children's intervals (clipped to it).
 * O(children).
 */
export function ownTime(t: RequestTrees, ch: Children, p: number): number {
  const dur = t.durationMs[p]!;
  const a = ch.start[p]!;
  const b = ch.start[p + 1]!;
  if (a === b) return dur;
  const p0 = t.startMs[p]!;
  const p1 = p0 + dur;
  let covered = 0;
  let lo = -Infinity;
  let hi = -Infinity;
  // Children by start (childrenOf): a sweep merges their intervals.
  for (let k = a; k < b; k++) {
    const c = ch.list[k]!;
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
  return Math.max(0, dur - covered);
}
