/**
 * The avoid-hosts and pool policies' replays: calls kept off the slowest hosts, or queued on a
 * fixed number of workers.
 */

import type { LeafCalls } from '../../types';
import type { SeededRandom } from '../../random';
import { quantileInclusive } from '../../quantile';
import { drawOtherHost, newDrawStats, type DrawStats, type ReplayIndex } from './replay-index';

/** Hosts avoided, as a mask over calls.hosts, and how they were chosen. */
export interface AvoidedHosts {
  mask: Uint8Array;
  names: string[];
  /** True when neither hosts nor sharingMode was given and the slowest host was picked. */
  picked: boolean;
}

/** Calls a host needs before it can be picked as the slowest. */
const MIN_CALLS_TO_PICK = 20;

/**
 * The avoided hosts: the listed ones, plus every host whose calls carry the sharing mode;
 * neither given: the host with the highest p99 call latency (at least 20 calls). O(calls).
 */
export function avoidedHosts(
  calls: LeafCalls,
  hosts: readonly string[],
  mode?: string,
): AvoidedHosts {
  const mask = new Uint8Array(calls.hosts.length);
  calls.hosts.forEach((h, i) => {
    if (hosts.includes(h)) mask[i] = 1;
  });
  if (mode !== undefined) {
    const m = calls.modes.indexOf(mode);
    if (m >= 0)
      for (let i = 0; i < calls.host.length; i++) if (calls.mode[i] === m) mask[calls.host[i]!] = 1;
  }
  const picked = hosts.length === 0 && mode === undefined;
  if (picked) {
    const by: number[][] = calls.hosts.map(() => []);
    for (let i = 0; i < calls.host.length; i++) by[calls.host[i]!]!.push(calls.durationMs[i]!);
    let worst = -1;
    let worstP99 = -Infinity;
    by.forEach((xs, h) => {
      if (xs.length < MIN_CALLS_TO_PICK) return;
      const p99 = quantileInclusive(Float64Array.from(xs).sort(), 0.99);
      if (p99 > worstP99) {
        worstP99 = p99;
        worst = h;
      }
    });
    if (worst >= 0) mask[worst] = 1;
  }
  return { mask, names: calls.hosts.filter((_, i) => mask[i] === 1), picked };
}

export interface AvoidReplay {
  allLeavesMs: Float64Array;
  /** Calls moved off avoided hosts. */
  moved: number;
  /** Calls left on an avoided host: no other host in reach. */
  stuck: number;
  draws: DrawStats;
}

/**
 * A call to an avoided host takes the latency of a recorded call to a host that is not avoided,
 * sent at about the same time (drawOtherHost with the avoided hosts excluded). Assumption: the
 * remaining hosts keep their recorded latencies under the load they take over. O(calls).
 */
export function replayAvoidHosts(
  ix: ReplayIndex,
  mask: Uint8Array,
  rng: SeededRandom,
): AvoidReplay {
  const { calls } = ix;
  const off = calls.fanoutOffsets;
  const fanouts = off.length - 1;
  const out = new Float64Array(Math.max(0, fanouts));
  const draws = newDrawStats();
  let moved = 0;
  let stuck = 0;
  for (let f = 0; f < fanouts; f++) {
    let max = 0;
    for (let i = off[f]!; i < off[f + 1]!; i++) {
      let t = calls.durationMs[i]!;
      if (mask[calls.host[i]!] === 1) {
        const j = drawOtherHost(
          ix,
          calls.fanoutStartMs[f]! + calls.startMs[i]!,
          i,
          rng,
          draws,
          mask,
        );
        if (j >= 0) {
          t = calls.durationMs[j]!;
          moved++;
        } else stuck++;
      }
      const fin = calls.startMs[i]! + t;
      if (fin > max) max = fin;
    }
    out[f] = max;
  }
  return { allLeavesMs: out, moved, stuck, draws };
}

/**
 * Pool of k workers on recorded fan-outs: calls in recorded order, each on the worker that
 * frees first (all free at the fan-out's start), keeping its latency. O(calls x k).
 */
export function replayPool(calls: LeafCalls, workers: number): Float64Array {
  const off = calls.fanoutOffsets;
  const fanouts = off.length - 1;
  const out = new Float64Array(Math.max(0, fanouts));
  const order: number[] = [];
  for (let f = 0; f < fanouts; f++) {
    const a = off[f]!;
    const n = off[f + 1]! - a;
    if (!Number.isFinite(workers) || workers >= n) {
      let max = 0;
      for (let i = a; i < a + n; i++) max = Math.max(max, calls.durationMs[i]!);
      out[f] = max;
      continue;
    }
    order.length = 0;
    for (let i = a; i < a + n; i++) order.push(i);
    order.sort((x, y) => calls.startMs[x]! - calls.startMs[y]! || x - y);
    const free = new Float64Array(workers);
    let max = 0;
    for (const i of order) {
      let w = 0;
      for (let k = 1; k < workers; k++) if (free[k]! < free[w]!) w = k;
      free[w] = free[w]! + calls.durationMs[i]!;
      if (free[w]! > max) max = free[w]!;
    }
    out[f] = max;
  }
  return out;
}
