/**
 * Seeded synthetic leaf calls, and leaf calls from plain rows, for tests, demos and the benchmark.
 */

import type { LeafCalls, Random } from '../../types';
import { SeededRandom } from '../../random';

export interface SyntheticLeafCallsOptions {
  fanouts: number;
  /** Calls per fan-out. */
  width: number;
  hosts: number;
  seed?: number;
  /** Fan-outs per second of wall time; they are evenly spaced. Default 1000. */
  fanoutsPerSecond?: number;
  /** Epoch ms of the first fan-out. Default 1.7e12. */
  t0Ms?: number;
  /**
   * Latency of one call, ms, from a uniform source, the host and the fan-out start (epoch ms).
   * Default: 1 + exponential with mean 4.
   */
  latencyMs?: (u: Random, host: number, fanoutStartMs: number) => number;
}

/**
 * Seeded synthetic leaf calls for tests, benchmarks and demos of the simulator: every call of
 * a fan-out starts at 0 and goes to a uniformly random host. O(fanouts x width). Same options,
 * same data.
 */
export function synthesizeLeafCalls(o: SyntheticLeafCallsOptions): LeafCalls {
  const rng = new SeededRandom(o.seed ?? 1);
  const u: Random = () => rng.float();
  const latency = o.latencyMs ?? ((r: Random) => 1 - 4 * Math.log(1 - r()));
  const n = o.fanouts * o.width;
  const spacing = 1000 / (o.fanoutsPerSecond ?? 1000);
  const t0 = o.t0Ms ?? 1.7e12;
  const calls: LeafCalls = {
    fanoutOffsets: new Uint32Array(o.fanouts + 1),
    fanoutStartMs: new Float64Array(o.fanouts),
    traceIds: Array.from({ length: o.fanouts }, (_, f) => f.toString(16).padStart(32, '0')),
    startMs: new Float64Array(n),
    durationMs: new Float64Array(n),
    host: new Uint32Array(n),
    mode: new Uint32Array(n),
    background: new Uint32Array(n),
    hosts: Array.from({ length: o.hosts }, (_, h) => `host-${h}`),
    modes: ['unknown'],
    backgrounds: ['none'],
  };
  for (let f = 0; f < o.fanouts; f++) {
    const t = t0 + f * spacing;
    calls.fanoutStartMs[f] = t;
    calls.fanoutOffsets[f + 1] = (f + 1) * o.width;
    for (let i = f * o.width; i < (f + 1) * o.width; i++) {
      const h = rng.below(o.hosts);
      calls.host[i] = h;
      calls.durationMs[i] = latency(u, h, t);
    }
  }
  return calls;
}

/** One recorded call, for building small LeafCalls by hand. */
export interface LeafCallRow {
  startMs?: number;
  durationMs: number;
  host: number;
  background?: number;
}

/**
 * LeafCalls from rows grouped by fan-out (fan-out f starts at `fanoutStartMs[f]`); hosts are
 * named host-0.., backgrounds none, gc, compaction... O(calls).
 */
export function leafCallsFromRows(
  fanoutStartMs: readonly number[],
  rows: readonly (readonly LeafCallRow[])[],
  hosts: number,
  backgrounds: readonly string[] = ['none'],
): LeafCalls {
  const flat = rows.flat();
  const offsets = new Uint32Array(rows.length + 1);
  rows.forEach((r, f) => (offsets[f + 1] = offsets[f]! + r.length));
  return {
    fanoutOffsets: offsets,
    fanoutStartMs: Float64Array.from(fanoutStartMs),
    traceIds: rows.map((_, f) => f.toString(16).padStart(32, '0')),
    startMs: Float64Array.from(flat, (c) => c.startMs ?? 0),
    durationMs: Float64Array.from(flat, (c) => c.durationMs),
    host: Uint32Array.from(flat, (c) => c.host),
    mode: new Uint32Array(flat.length),
    background: Uint32Array.from(flat, (c) => c.background ?? 0),
    hosts: Array.from({ length: hosts }, (_, h) => `host-${h}`),
    modes: ['unknown'],
    backgrounds: [...backgrounds],
  };
}
