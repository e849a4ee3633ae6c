/**
 * The load model of a whole-request replay: open, or a closed loop of clients around a
 * serialized resource, detected and replayed.
 */

import { detectClosedLoop } from './closed-loop';
import type { RequestTrees } from '../trees';
import {
  absoluteTimes,
  callsByOperation,
  fifoDecompose,
  requestOfNodes,
  serializedEvidence,
  SERIALIZED_MIN_EXECUTIONS,
  type OperationKey,
} from './serialized-resource';

/**
 * The load model of a whole-request replay (issue #14). 'open': each request is re-timed on its
 * own (arrivals do not depend on completions). 'closed-loop': the recording shows a few clients
 * sending requests back to back AND an operation serialized across requests (a lock, one
 * connection); then faster requests come back sooner and queue longer on that operation, so
 * the replay re-runs the clients and the operation's FIFO queue (`replayClosedLoop`).
 */
export interface ClosedLoopModel {
  clients: number;
  resource: OperationKey;
  holdP50Ms: number;
  thinkP50Ms: number;
  recordedWaitP50Ms: number;
  /** Per request: recorded root start (epoch ms), the request its client sent before, think time. */
  startMs: Float64Array;
  previous: Int32Array;
  thinkMs: Float64Array;
  /** Per request: start of its resource call from the root start, NaN without one. */
  arrivalMs: Float64Array;
  /** Per request: its resource call's recorded wait and hold (0 without one). */
  waitMs: Float64Array;
  holdMs: Float64Array;
}

export type LoopDetection =
  { model: 'closed-loop'; loop: ClosedLoopModel } | { model: 'open'; reason: string };

const median = (a: Float64Array): number => {
  if (a.length === 0) return NaN;
  const s = Float64Array.from(a).sort();
  return s[Math.floor((s.length - 1) / 2)]!;
};

/**
 * Detects the closed-loop model in recorded trees; `target` marks the replayed edges (per edge
 * 1). The serialized operation must be called at most once per request, serially (no call beside
 * it or its callers overlaps it, so a change of its wait moves the request's end one to one), and
 * before the replayed calls start (so the policy does not move its arrival within the request).
 * O(nodes + calls log calls + R x N).
 */
export function detectLoopModel(t: RequestTrees, target: Uint8Array): LoopDetection {
  const R = t.nodeOffsets.length - 1;
  const rootMs = new Float64Array(R);
  for (let q = 0; q < R; q++) rootMs[q] = t.durationMs[t.nodeOffsets[q]!]!;
  const loop = detectClosedLoop(t.requestStartMs, rootMs);
  if (!loop.closed) return { model: 'open', reason: `not a closed loop: ${loop.reason ?? ''}` };
  const reqOf = requestOfNodes(t);
  const found = serializedOperation(t, target, reqOf);
  if (typeof found === 'string') return { model: 'open', reason: found };
  const { op, nodes } = found;
  const bad = nodes.find((i) => !serialInRequest(t, i, reqOf[i]!, target));
  if (bad !== undefined)
    return {
      model: 'open',
      reason: `${op.service}/${op.operation} is serialized, but in request ${t.traceIds[reqOf[bad]!] ?? ''} it overlaps other calls or follows the replayed edge`,
    };
  const { startMs, endMs } = absoluteTimes(t, nodes, reqOf);
  const { waitMs: w, holdMs: h } = fifoDecompose(startMs, endMs);
  const arrivalMs = new Float64Array(R).fill(NaN);
  const waitMs = new Float64Array(R);
  const holdMs = new Float64Array(R);
  nodes.forEach((i, k) => {
    const q = reqOf[i]!;
    arrivalMs[q] = t.startMs[i]!;
    waitMs[q] = w[k]!;
    holdMs[q] = h[k]!;
  });
  return {
    model: 'closed-loop',
    loop: {
      clients: loop.clients,
      resource: op,
      holdP50Ms: median(h),
      thinkP50Ms: loop.thinkP50Ms,
      recordedWaitP50Ms: median(w),
      startMs: t.requestStartMs,
      previous: loop.previous,
      thinkMs: loop.thinkMs,
      arrivalMs,
      waitMs,
      holdMs,
    },
  };
}

/**
 * The serialized operation with the most hold time, among callees called at most once per
 * request and not replayed; or why there is none.
 */
function serializedOperation(
  t: RequestTrees,
  target: Uint8Array,
  reqOf: Uint32Array,
): { op: OperationKey; nodes: number[] } | string {
  const replayed = new Set<string>();
  t.edges.forEach((e, k) => {
    if (target[k] === 1) replayed.add(JSON.stringify([e.leafService, e.leafOperation]));
  });
  const found: { op: OperationKey; nodes: number[]; hold: number }[] = [];
  let why = 'no operation is called often enough';
  for (const [key, g] of callsByOperation(t)) {
    if (replayed.has(key) || g.nodes.length < SERIALIZED_MIN_EXECUTIONS) continue;
    const seen = new Set<number>();
    if (g.nodes.some((i) => seen.size === seen.add(reqOf[i]!).size)) continue; // twice in a request
    const { startMs, endMs } = absoluteTimes(t, g.nodes, reqOf);
    const ev = serializedEvidence(startMs, endMs);
    if (!ev.serialized) {
      why = `${g.op.service}/${g.op.operation}: ${ev.reason ?? ''}`;
      continue;
    }
    found.push({ op: g.op, nodes: g.nodes, hold: ev.holdP50Ms * g.nodes.length });
  }
  const best = innermost(t, found).sort((a, b) => b.hold - a.hold)[0];
  return (
    best ?? `a closed loop, but no operation is serialized across requests (last checked ${why})`
  );
}

/**
 * Drops candidates that mostly enclose another one's calls: a call that waits on a lock inside
 * it looks serialized too (HotROD's customer call around its MySQL query), but the resource is
 * the inner operation. O(candidate calls x depth).
 */
function innermost<T extends { nodes: number[] }>(t: RequestTrees, found: T[]): T[] {
  const outer = new Map<number, number>(); // node -> candidate enclosing another's call
  found.forEach((g, k) => {
    for (const i of g.nodes) for (let x = t.parent[i]!; x >= 0; x = t.parent[x]!) outer.set(x, k);
  });
  return found.filter((g, k) => {
    const enclosing = g.nodes.filter((i) => outer.has(i) && outer.get(i) !== k).length;
    return enclosing * 2 <= g.nodes.length;
  });
}

/**
 * Whether a change of node i's duration moves its request's end one to one and the replayed
 * calls leave its start alone: i and each of its callers overlap none of their siblings, and
 * every replayed call of the request starts at or after i starts. O(nodes of the request).
 */
function serialInRequest(t: RequestTrees, i: number, q: number, target: Uint8Array): boolean {
  const chain = new Set<number>();
  for (let x = i; x >= 0; x = t.parent[x]!) chain.add(x);
  const childOnChain = new Map<number, number>();
  for (const x of chain) if (t.parent[x]! >= 0) childOnChain.set(t.parent[x]!, x);
  const eps = 1e-6;
  for (let k = t.nodeOffsets[q]!; k < t.nodeOffsets[q + 1]!; k++) {
    const e = t.edge[k]!;
    if (e >= 0 && target[e] === 1 && t.startMs[k]! < t.startMs[i]! - eps) return false;
    const c = childOnChain.get(t.parent[k]!);
    if (c === undefined || c === k) continue;
    const overlaps =
      t.startMs[k]! < t.startMs[c]! + t.durationMs[c]! - eps &&
      t.startMs[k]! + t.durationMs[k]! > t.startMs[c]! + eps;
    if (overlaps) return false;
  }
  return true;
}

/**
 * One replay of the closed loop: `requestMs` holds every request re-timed alone (its recorded
 * resource wait included) on entry and the closed-loop times on exit; `waitOut` gets each
 * request's new wait. Each client sends its recorded requests in order, the first at its
 * recorded start, each next one its recorded think time after the previous answered; a
 * request reaches the resource at its recorded offset and is served FIFO for its recorded hold.
 * Events are taken in time order (each client has one pending request). O(R x N).
 */
export function replayClosedLoop(
  m: ClosedLoopModel,
  requestMs: Float64Array,
  waitOut?: Float64Array,
): void {
  const R = m.startMs.length;
  const next = new Int32Array(R).fill(-1);
  const pending: number[] = [];
  for (let q = 0; q < R; q++) {
    const p = m.previous[q]!;
    if (p >= 0) next[p] = q;
    else pending.push(q);
  }
  const start = Float64Array.from(m.startMs);
  const at = (q: number): number =>
    start[q]! + (Number.isNaN(m.arrivalMs[q]!) ? 0 : m.arrivalMs[q]!);
  let free = -Infinity;
  while (pending.length > 0) {
    let k = 0;
    for (let j = 1; j < pending.length; j++) if (at(pending[j]!) < at(pending[k]!)) k = j;
    const q = pending[k]!;
    let wait = 0;
    if (!Number.isNaN(m.arrivalMs[q]!)) {
      const arrive = at(q);
      const begin = Math.max(arrive, free);
      wait = begin - arrive;
      free = begin + m.holdMs[q]!;
    }
    requestMs[q] = requestMs[q]! - m.waitMs[q]! + wait;
    if (waitOut) waitOut[q] = wait;
    const n = next[q]!;
    if (n >= 0) {
      start[n] = start[q]! + requestMs[q] + m.thinkMs[n]!;
      pending[k] = n;
    } else {
      pending.splice(k, 1);
    }
  }
}
