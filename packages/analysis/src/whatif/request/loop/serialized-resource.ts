/**
 * Serialized shared resources found in the recording: operations whose executions hold one
 * thing at a time (a lock, a single-threaded database).
 */

import type { RequestTrees } from '../trees';

/**
 * Serialized shared resources (issue #14, the HotROD ground truth): an operation whose
 * executions across all requests hold one thing at a time, such as a lock or a database with
 * one connection. Each execution is split into a wait and a hold by a FIFO single-server
 * reconstruction: executions ordered by end, hold_i = end_i - max(start_i, end_(i-1)) and
 * wait_i = duration_i - hold_i. The decomposition exists for any operation, so the evidence
 * that the resource really serializes is tested separately (see `serializedEvidence`).
 */
export interface FifoDecomposition {
  /** Per execution (input order): time spent queued behind earlier executions, ms. */
  waitMs: Float64Array;
  /** Per execution: time holding the resource, ms. */
  holdMs: Float64Array;
}

/** Order of executions by end (ties by start), as indices. O(n log n). */
function byEnd(startMs: Float64Array, endMs: Float64Array): Uint32Array {
  const ix = Uint32Array.from(startMs, (_, i) => i);
  return ix.sort((a, b) => endMs[a]! - endMs[b]! || startMs[a]! - startMs[b]!);
}

/** FIFO single-server decomposition of executions given as absolute start and end times. */
export function fifoDecompose(startMs: Float64Array, endMs: Float64Array): FifoDecomposition {
  const n = startMs.length;
  const waitMs = new Float64Array(n);
  const holdMs = new Float64Array(n);
  let free = -Infinity;
  for (const i of byEnd(startMs, endMs)) {
    const from = Math.max(startMs[i]!, free);
    holdMs[i] = endMs[i]! - from;
    waitMs[i] = from - startMs[i]!;
    free = endMs[i]!;
  }
  return { waitMs, holdMs };
}

/** Why an operation does or does not look serialized, with the figures behind the answer. */
export interface SerializedEvidence {
  serialized: boolean;
  executions: number;
  /** Share of executions that waited (started while an earlier one still held). */
  waitedShare: number;
  /** Among overlapping executions adjacent in start order: share that ended in the other order. */
  overtakeShare: number;
  /** Least-squares slope of duration on reconstructed wait (1 when waits add to durations). */
  waitSlope: number;
  holdP50Ms: number;
  /** Present when `serialized` is false. */
  reason?: string;
}

/** Thresholds, chosen so a queue of a few clients on one lock passes and overlapping independent calls do not. */
export const SERIALIZED_MIN_EXECUTIONS = 20;
const MIN_WAITED_SHARE = 0.25;
const MAX_OVERTAKE_SHARE = 0.05;
const SLOPE_RANGE: readonly [number, number] = [0.8, 1.25];

/**
 * Tests the FIFO single-server hypothesis on executions (absolute start and end, ms):
 * - contention: at least a quarter of the executions overlap an earlier one (else there is no
 *   queue to model, whatever the resource is);
 * - no overtaking: a FIFO server ends executions in the order they started (independent calls
 *   of varying length overtake each other whenever they overlap);
 * - waits are real: a serialized execution lasts its wait plus a hold that does not depend on
 *   the wait, so duration regresses on the reconstructed wait with slope ~1 (for independent
 *   calls the "wait" is only overlap, and the slope is near 0).
 * O(n log n).
 */
export function serializedEvidence(startMs: Float64Array, endMs: Float64Array): SerializedEvidence {
  const n = startMs.length;
  const { waitMs, holdMs } = fifoDecompose(startMs, endMs);
  let waited = 0;
  let sw = 0;
  let sd = 0;
  for (let i = 0; i < n; i++) {
    if (waitMs[i]! > 1e-9) waited++;
    sw += waitMs[i]!;
    sd += endMs[i]! - startMs[i]!;
  }
  const mw = sw / Math.max(1, n);
  const md = sd / Math.max(1, n);
  let cov = 0;
  let varW = 0;
  for (let i = 0; i < n; i++) {
    const dw = waitMs[i]! - mw;
    cov += dw * (endMs[i]! - startMs[i]! - md);
    varW += dw * dw;
  }
  const byStart = Uint32Array.from(startMs, (_, i) => i).sort(
    (a, b) => startMs[a]! - startMs[b]! || endMs[a]! - endMs[b]!,
  );
  let overlapping = 0;
  let overtaken = 0;
  for (let k = 1; k < n; k++) {
    const a = byStart[k - 1]!;
    const b = byStart[k]!;
    if (startMs[b]! >= endMs[a]!) continue;
    overlapping++;
    if (endMs[b]! < endMs[a]!) overtaken++;
  }
  const holds = Float64Array.from(holdMs).sort();
  const e: SerializedEvidence = {
    serialized: false,
    executions: n,
    waitedShare: waited / Math.max(1, n),
    overtakeShare: overtaken / Math.max(1, overlapping),
    waitSlope: varW > 0 ? cov / varW : 0,
    holdP50Ms: n > 0 ? holds[Math.floor((n - 1) / 2)]! : NaN,
  };
  const reason =
    n < SERIALIZED_MIN_EXECUTIONS
      ? `${String(n)} executions (at least ${String(SERIALIZED_MIN_EXECUTIONS)} needed)`
      : e.waitedShare < MIN_WAITED_SHARE
        ? `only ${pct(e.waitedShare)} of executions overlap an earlier one (no queue to model)`
        : e.overtakeShare > MAX_OVERTAKE_SHARE
          ? `${pct(e.overtakeShare)} of overlapping executions end out of start order (not one FIFO server)`
          : e.waitSlope < SLOPE_RANGE[0] || e.waitSlope > SLOPE_RANGE[1]
            ? `duration grows ${e.waitSlope.toFixed(2)} ms per ms of reconstructed wait (a queue adds 1)`
            : undefined;
  if (reason === undefined) e.serialized = true;
  else e.reason = reason;
  return e;
}

const pct = (x: number): string => `${(x * 100).toFixed(0)}%`;

/** The callee operation of a call node: (service, operation). */
export interface OperationKey {
  service: string;
  operation: string;
}

/** Every call node of the trees grouped by callee operation (across callers). O(nodes). */
export function callsByOperation(
  t: RequestTrees,
): Map<string, { op: OperationKey; nodes: number[] }> {
  const out = new Map<string, { op: OperationKey; nodes: number[] }>();
  for (let i = 0; i < t.edge.length; i++) {
    const e = t.edge[i]!;
    if (e < 0) continue;
    const { leafService, leafOperation } = t.edges[e]!;
    const key = JSON.stringify([leafService, leafOperation]);
    const g = out.get(key);
    if (g) g.nodes.push(i);
    else out.set(key, { op: { service: leafService, operation: leafOperation }, nodes: [i] });
  }
  return out;
}

/** Absolute start and end (ms) of call nodes; `requestOf` maps a node to its request. */
export function absoluteTimes(
  t: RequestTrees,
  nodes: readonly number[],
  requestOf: Uint32Array,
): { startMs: Float64Array; endMs: Float64Array } {
  const startMs = new Float64Array(nodes.length);
  const endMs = new Float64Array(nodes.length);
  nodes.forEach((i, k) => {
    startMs[k] = t.requestStartMs[requestOf[i]!]! + t.startMs[i]!;
    endMs[k] = startMs[k] + t.durationMs[i]!;
  });
  return { startMs, endMs };
}

/** Request index of every node. O(nodes). */
export function requestOfNodes(t: RequestTrees): Uint32Array {
  const out = new Uint32Array(t.parent.length);
  for (let q = 0; q + 1 < t.nodeOffsets.length; q++)
    out.fill(q, t.nodeOffsets[q], t.nodeOffsets[q + 1]);
  return out;
}
