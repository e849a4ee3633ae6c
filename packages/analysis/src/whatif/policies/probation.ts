/**
 * The probation policy's replay, in time order: calls to hosts on probation re-served elsewhere.
 */

import type { ResolvedPolicy } from './policy';
import { drawOtherHost, newDrawStats, type DrawStats, type ReplayIndex } from './replay-index';
import type { SeededRandom } from '../../random';
import { HostWindowStats } from '../estimate';
import { ProbationState } from './probation-state';

export type ProbationParams = Extract<ResolvedPolicy, { kind: 'probation' }>;

export interface ProbationReplay {
  allLeavesMs: Float64Array;
  /** Seconds each host spent on probation (indexed like calls.hosts). */
  secondsByHost: Float64Array;
  /** Share of host-seconds removed: sum of probation seconds / (hosts seen x seconds covered). */
  capacityRemoved: number;
  /** Calls re-served by another host. */
  redirected: number;
  /** Shadow requests sent to hosts on probation (the extra load). */
  shadows: number;
  /** Calls to a probation host for which no healthy host was found in the window (kept as recorded). */
  unserved: number;
  coveredSeconds: number;
  draws: DrawStats;
}

/**
 * Latency-induced probation replayed in time order. Every intervalSeconds the hosts are judged
 * on the last windowSeconds of calls; a call to a host on probation is re-served by a recorded
 * call to a healthy host in the same draw window, and with probability shadowFraction also goes
 * to the probation host as a shadow request, whose recorded latency keeps its statistics going.
 * A call's latency counts in the interval it finished in, as a real tracker learns it only
 * then: a 200 ms call sent 100 ms before a judgement is not in it. Which hosts are on probation
 * is decided when the call is sent (by its fan-out's start interval). Assumption: healthy hosts
 * keep their recorded latencies when they take the extra traffic.
 * O(calls + intervals x hosts x 512).
 */
export function replayProbation(
  ix: ReplayIndex,
  p: ProbationParams,
  rng: SeededRandom,
  reported?: Uint8Array,
): ProbationReplay {
  const { calls, order } = ix;
  const hosts = calls.hosts.length;
  const allLeaves = new Float64Array(order.length);
  const intervalMs = p.intervalSeconds * 1000;
  const slots = Math.max(1, Math.round(p.windowSeconds / p.intervalSeconds));
  const stats = new HostWindowStats(hosts, calls.durationMs.length);
  const state = new ProbationState(p, hosts, countHostsSeen(calls.host, hosts));
  const t0 = order.length > 0 ? calls.fanoutStartMs[order[0]!]! : 0;
  const intervalAt = (ms: number): number => Math.floor((ms - t0) / intervalMs);
  const intervalOf = (f: number): number => intervalAt(calls.fanoutStartMs[f]!);
  const late = new LateCalls();
  const c: Counters = {
    redirected: 0,
    shadows: 0,
    unserved: 0,
    draws: newDrawStats(),
    record: (k, h, sentMs, ms) => {
      const kf = intervalAt(sentMs + ms);
      if (kf <= k) stats.add(h, ms);
      else late.push(kf, h, ms);
    },
  };
  // Warm-up fan-outs (reported[f] === 0) build up the hosts' windows and probation state; time
  // and counters start with the first reported one.
  let firstPos = 0;
  while (reported && firstPos < order.length && reported[order[firstPos]!] === 0) firstPos++;
  const firstK = firstPos < order.length ? intervalOf(order[firstPos]!) : -1;
  state.countFrom(Math.max(0, firstK));
  let prevK = -1;
  let pos = 0;
  while (pos < order.length) {
    const k = intervalOf(order[pos]!);
    // Intervals without traffic: calls finishing in them count there; judge again while the
    // window still holds calls.
    for (let j = prevK + 1; prevK >= 0 && j < k; j++) {
      if (j - prevK > slots && !late.has(j)) continue;
      late.flush(j, stats);
      stats.close(j);
      stats.expireThrough(j - slots);
      state.evaluate(stats, j);
    }
    for (; pos < order.length && intervalOf(order[pos]!) === k; pos++) {
      const f = order[pos]!;
      const weight = reported ? reported[f]! : 1;
      allLeaves[f] = replayFanout(ix, f, k, state.out, rng, p.shadowFraction, c, weight);
    }
    late.flush(k, stats);
    stats.close(k);
    stats.expireThrough(k - slots);
    state.evaluate(stats, k);
    prevK = k;
  }
  const lastK = Math.max(prevK, 0);
  const secondsByHost = state.finish(lastK);
  const coveredSeconds = firstK < 0 ? 0 : (lastK - firstK + 1) * p.intervalSeconds;
  let total = 0;
  for (const s of secondsByHost) total += s;
  const capacityRemoved =
    coveredSeconds > 0 && state.hostsSeen > 0 ? total / (state.hostsSeen * coveredSeconds) : 0;
  return {
    allLeavesMs: allLeaves,
    secondsByHost,
    capacityRemoved,
    redirected: c.redirected,
    shadows: c.shadows,
    unserved: c.unserved,
    coveredSeconds,
    draws: c.draws,
  };
}

interface Counters {
  redirected: number;
  shadows: number;
  unserved: number;
  draws: DrawStats;
  /** Counts latency `ms` of host h, sent at epoch ms `sentMs` in interval k, when it finishes. */
  record: (k: number, h: number, sentMs: number, ms: number) => void;
}

/** Latencies of calls that finish in a later interval than they were sent in, by that interval. */
class LateCalls {
  private readonly byInterval = new Map<number, number[]>();

  push(k: number, h: number, ms: number): void {
    const list = this.byInterval.get(k);
    if (list) list.push(h, ms);
    else this.byInterval.set(k, [h, ms]);
  }

  has(k: number): boolean {
    return this.byInterval.has(k);
  }

  /** Adds interval k's late latencies to the stats (the current interval). */
  flush(k: number, stats: HostWindowStats): void {
    const list = this.byInterval.get(k);
    if (!list) return;
    for (let i = 0; i < list.length; i += 2) stats.add(list[i]!, list[i + 1]!);
    this.byInterval.delete(k);
  }
}

/** Replays one fan-out against the current probation set; returns its all-leaves time. */
function replayFanout(
  ix: ReplayIndex,
  f: number,
  k: number,
  onProbation: Uint8Array,
  rng: SeededRandom,
  shadowFraction: number,
  c: Counters,
  weight: number,
): number {
  const { calls } = ix;
  const dur = calls.durationMs;
  const host = calls.host;
  const start = calls.startMs;
  const t0 = calls.fanoutStartMs[f]!;
  const end = calls.fanoutOffsets[f + 1]!;
  let max = 0;
  for (let i = calls.fanoutOffsets[f]!; i < end; i++) {
    const h = host[i]!;
    let t = dur[i]!;
    if (onProbation[h] === 1) {
      const j = drawOtherHost(ix, t0 + start[i]!, i, rng, c.draws, onProbation);
      if (j >= 0) {
        t = dur[j]!;
        c.redirected += weight;
      } else c.unserved += weight;
      if (rng.float() < shadowFraction) {
        c.shadows += weight;
        c.record(k, h, t0 + start[i]!, dur[i]!);
      }
    } else c.record(k, h, t0 + start[i]!, t);
    const fin = start[i]! + t;
    if (fin > max) max = fin;
  }
  return max;
}

function countHostsSeen(host: Uint32Array, hosts: number): number {
  const seen = new Uint8Array(hosts);
  let n = 0;
  for (const h of host) {
    if (seen[h] === 0) {
      seen[h] = 1;
      n++;
    }
  }
  return n;
}
