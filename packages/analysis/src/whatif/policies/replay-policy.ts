/**
 * One policy replayed on a set of leaf calls: the dispatch from a resolved policy to its replay.
 */

import type { LeafCalls } from '../../types';
import type { ResolvedPolicy } from './policy';
import type { SeededRandom } from '../../random';
import { buildReplayIndex, type DrawStats } from './replay-index';
import { latencyQuantile, latencyQuantileKept } from '../estimate';
import { replayHedge } from './hedge';
import { replayTied } from './tied';
import { replayProbation } from './probation';
import { replayGoodEnough } from './good-enough';
import { replayCanary } from './canary';
import { replaySyncBackground } from './sync-background';
import { avoidedHosts, replayAvoidHosts, replayPool } from './avoid-hosts';
import type { PolicyPrep } from './policy-prep';

/** What one policy's replay yields before percentiles are taken. */
export interface PolicyOutcome {
  allLeavesMs: Float64Array;
  extraLoad: number;
  notes: string[];
  probation?: { hosts: { host: string; seconds: number }[]; capacityRemoved: number };
  completeness?: { callsAnswered: number; requestsComplete: number; lost: number };
  /** avoid-hosts: hosts avoided, share of hosts removed, extra load on each remaining host. */
  avoid?: { hosts: string[]; capacityRemoved: number; loadAdded: number };
}

const pct = (x: number): string => `${(100 * x).toFixed(2)}%`;
const ms = (x: number): string => `${Number(x.toPrecision(4))} ms`;

/** Which fan-outs count (undefined: all), how many calls they hold, and the prep. */
interface Weights {
  reported: Uint8Array | undefined;
  calls: number;
  prep: PolicyPrep;
}

function reportedCalls(calls: LeafCalls, reported: Uint8Array | undefined): number {
  if (!reported) return calls.durationMs.length;
  let n = 0;
  const off = calls.fanoutOffsets;
  for (let f = 0; f < reported.length; f++)
    if (reported[f] === 1) n += (off[f + 1] ?? 0) - (off[f] ?? 0);
  return n;
}

/**
 * Runs the replay for a resolved policy. See each replay function for its model. Fan-outs with
 * `reported[f] === 0` are warm-up: replayed (they shape probation and the draw windows) but not
 * counted in extra load, completeness or probation time. `prep`: work done beforehand
 * (policy-prep.ts), the same values.
 */
export function replayPolicy(
  calls: LeafCalls,
  p: ResolvedPolicy,
  rng: SeededRandom,
  reported?: Uint8Array,
  replays = 1,
  prep: PolicyPrep = {},
): PolicyOutcome {
  const w: Weights = { reported, calls: reportedCalls(calls, reported), prep };
  switch (p.kind) {
    case 'hedge':
      return hedgeOutcome(calls, p, rng, w, replays);
    case 'tied':
      return repeatReplay(replays, () => tiedOutcome(calls, p, rng, w));
    case 'probation':
      return repeatReplay(replays, () => probationOutcome(calls, p, rng, w));
    case 'good-enough': {
      const r = replayGoodEnough(calls, p, reported);
      const lost = 1 - r.callsAnswered;
      return {
        allLeavesMs: r.allLeavesMs,
        extraLoad: 0,
        completeness: {
          callsAnswered: r.callsAnswered,
          requestsComplete: r.requestsComplete,
          lost,
        },
        notes: [
          `answers at ${pct(p.fraction)} of calls${p.deadlineMs !== undefined ? ` or ${ms(p.deadlineMs)}, whichever is first` : ''}: ${pct(lost)} of leaf answers given up, ${pct(1 - r.requestsComplete)} of requests incomplete`,
        ],
      };
    }
    case 'canary':
      return repeatReplay(replays, () => ({
        allLeavesMs: replayCanary(calls, p.canaries, rng).allLeavesMs,
        extraLoad: 0,
        notes: [
          `${p.canaries} canary call(s) per request go first; the rest wait for them (latency added = what-if minus baseline)`,
        ],
      }));
    case 'sync-background':
      return repeatReplay(replays, () => syncBackgroundOutcome(calls, p.mergeGapMs, rng, reported));
    case 'pool':
      return {
        allLeavesMs: replayPool(calls, p.workers),
        extraLoad: 0,
        notes: [
          `calls of each request scheduled in recorded order on ${Number.isFinite(p.workers) ? `${p.workers} workers` : 'unbounded workers (all at once)'}, each keeping its recorded latency (no queueing added at the callee by the extra concurrency)`,
        ],
      };
    case 'avoid-hosts':
      return repeatReplay(replays, () => avoidOutcome(calls, p, rng, w));
  }
}

function avoidOutcome(
  calls: LeafCalls,
  p: Extract<ResolvedPolicy, { kind: 'avoid-hosts' }>,
  rng: SeededRandom,
  wt: Weights,
): PolicyOutcome {
  const av = avoidedHosts(calls, p.hosts, p.sharingMode);
  const ix = buildReplayIndex(calls, { drawWindowMs: p.drawWindowMs }, wt.prep.index);
  const r = replayAvoidHosts(ix, av.mask, rng);
  const seen = new Set<number>(calls.host);
  const remaining = [...seen].filter((h) => av.mask[h] === 0).length;
  const removed = seen.size > 0 ? (seen.size - remaining) / seen.size : 0;
  const n = wt.calls;
  return {
    allLeavesMs: r.allLeavesMs,
    extraLoad: 0,
    avoid: {
      hosts: av.names,
      capacityRemoved: removed,
      loadAdded: remaining > 0 && n > 0 ? r.moved / (n - r.moved) : 0,
    },
    notes: [
      `${av.picked ? 'avoiding the slowest host by p99 (no hosts or sharingMode given)' : 'avoiding'}: ${av.names.join(', ') || 'no host of the range'}; ${pct(n > 0 ? r.moved / n : 0)} of calls re-served by the other ${remaining} host(s) at the same time (assumed to keep their recorded latency under the load they take over)`,
      ...(r.stuck > 0
        ? [`${r.stuck} calls found no other host in reach and kept their latency`]
        : []),
      ...drawNote(r.draws),
    ],
  };
}

/** Policies whose replay draws nothing give the same answer every time: one replay. */
export function deterministicPolicy(p: ResolvedPolicy): boolean {
  return p.kind === 'good-enough' || p.kind === 'pool';
}

/**
 * R independent replays (the rng stream goes on from one to the next), their all-leaves times
 * concatenated (replay r of fan-out f at r x fan-outs + f) and extra load averaged; the other
 * figures (probation time, notes) are the first replay's. O(R x one replay).
 */
function repeatReplay(replays: number, once: () => PolicyOutcome): PolicyOutcome {
  const R = Math.max(1, Math.floor(replays));
  const first = once();
  if (R === 1) return first;
  const n = first.allLeavesMs.length;
  const all = new Float64Array(n * R);
  all.set(first.allLeavesMs);
  let extra = first.extraLoad;
  for (let r = 1; r < R; r++) {
    const o = once();
    all.set(o.allLeavesMs, r * n);
    extra += o.extraLoad;
  }
  return { ...first, allLeavesMs: all, extraLoad: extra / R };
}

function syncBackgroundOutcome(
  calls: LeafCalls,
  mergeGapMs: number,
  rng: SeededRandom,
  reported: Uint8Array | undefined,
): PolicyOutcome {
  const r = replaySyncBackground(calls, mergeGapMs, rng, reported);
  return {
    allLeavesMs: r.allLeavesMs,
    extraLoad: 0,
    notes: [
      r.episodes === 0
        ? 'no calls overlap background activity: nothing to align'
        : `${r.episodes} background episodes on ${r.hostsWithBackground} hosts aligned; ${r.movedOut} calls left background, ${r.movedIn} entered it (re-timed from the same host's recorded calls)`,
    ],
  };
}

function drawNote(d: DrawStats): string[] {
  if (d.outsideWindow === 0 && d.sameHost === 0) return [];
  return [
    `${d.outsideWindow} of ${d.draws} replacement draws left their window (it held one host only) and ${d.sameHost} stayed on the same host (no other host recorded)`,
  ];
}

function hedgeOutcome(
  calls: LeafCalls,
  p: Extract<ResolvedPolicy, { kind: 'hedge' }>,
  rng: SeededRandom,
  wt: Weights,
  replays: number,
): PolicyOutcome {
  const d = p.delay;
  const delayMs =
    'delayMs' in d
      ? d.delayMs
      : (wt.prep.quantile ??
        latencyQuantileKept(
          calls.durationMs,
          'delayPercentile' in d ? d.delayPercentile / 100 : 1 - d.maxExtraLoad,
        ));
  const ix = buildReplayIndex(calls, { drawWindowMs: p.drawWindowMs }, wt.prep.index);
  const { alloc, scan, done } = wt.prep;
  const r = replayHedge(ix, delayMs, p.maxAttempts, rng, wt.reported, replays, alloc, scan, done);
  const n = wt.calls;
  const how =
    'delayMs' in d
      ? 'fixed'
      : 'delayPercentile' in d
        ? `p${d.delayPercentile} of call latency`
        : `the (1 - ${d.maxExtraLoad}) quantile of call latency`;
  return {
    allLeavesMs: r.allLeavesMs,
    extraLoad: n > 0 ? r.backups / n : 0,
    notes: [
      `backup after ${ms(delayMs)} (${how}), up to ${p.maxAttempts} attempts; backup latencies drawn from calls to other hosts that started within ±${p.drawWindowMs / 2} ms of the backup (widened to ${ix.minPoolCalls} calls where traffic is thin)`,
      ...drawNote(r.draws),
    ],
  };
}

function tiedOutcome(
  calls: LeafCalls,
  p: Extract<ResolvedPolicy, { kind: 'tied' }>,
  rng: SeededRandom,
  wt: Weights,
): PolicyOutcome {
  const serviceMs = p.serviceMs ?? wt.prep.quantile ?? latencyQuantile(calls.durationMs, 0.5);
  const ix = buildReplayIndex(calls, { drawWindowMs: p.drawWindowMs }, wt.prep.index);
  const r = replayTied(
    ix,
    { delayMs: p.delayMs, cancelMs: p.cancelMs, serviceMs },
    rng,
    wt.reported,
  );
  const n = wt.calls;
  const model = calls.queueMs
    ? 'queueing time from the spans'
    : `assumed queueing share: the part of a call's latency above ${ms(serviceMs)} (${p.serviceMs === undefined ? 'median call latency' : 'serviceMs'}) is queueing, the rest execution`;
  return {
    allLeavesMs: r.allLeavesMs,
    extraLoad: n > 0 ? r.duplicated / n : 0,
    notes: [
      `second copy after ${ms(p.delayMs)}, cancellation takes ${ms(p.cancelMs)}; ${model}`,
      `${pct(n > 0 ? r.copies / n : 0)} of calls enqueued a copy (messages), ${pct(n > 0 ? r.copyWins / n : 0)} were served by it; extra load counts executions duplicated before the cancellation arrived`,
      ...drawNote(r.draws),
    ],
  };
}

function probationOutcome(
  calls: LeafCalls,
  p: Extract<ResolvedPolicy, { kind: 'probation' }>,
  rng: SeededRandom,
  wt: Weights,
): PolicyOutcome {
  const ix = buildReplayIndex(calls, { drawWindowMs: p.drawWindowMs }, wt.prep.index);
  const r = replayProbation(ix, p, rng, wt.reported);
  const n = wt.calls;
  const hosts: { host: string; seconds: number }[] = [];
  r.secondsByHost.forEach((s, h) => {
    if (s > 0) hosts.push({ host: calls.hosts[h] ?? String(h), seconds: s });
  });
  hosts.sort((a, b) => b.seconds - a.seconds || a.host.localeCompare(b.host));
  return {
    allLeavesMs: r.allLeavesMs,
    extraLoad: n > 0 ? r.shadows / n : 0,
    probation: { hosts, capacityRemoved: r.capacityRemoved },
    notes: [
      `hosts judged every ${p.intervalSeconds} s on their p${p.percentile} over ${p.windowSeconds} s against ${p.threshold} x the fleet median${p.minLatencyMs > 0 ? ` (and at least ${ms(p.minLatencyMs)})` : ''}; return after ${p.holdSeconds} s healthy; at most ${pct(p.maxEjectedFraction)} of hosts (at least one) out`,
      `${hosts.length} host(s) on probation over ${r.coveredSeconds} s; ${pct(n > 0 ? r.redirected / n : 0)} of calls re-served by healthy hosts at the same time (assumed to keep their recorded latency under the extra load); extra load = shadow requests (${pct(p.shadowFraction)} of a probation host's calls)`,
      ...(r.unserved > 0
        ? [
            `${r.unserved} calls to probation hosts found no healthy host in their window and kept their recorded latency`,
          ]
        : []),
      ...drawNote(r.draws),
    ],
  };
}
