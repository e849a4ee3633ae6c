import { fanoutTimes, type LeafCalls } from '@tailscope/analysis';
import { quantileCurve, type QuantilePoint } from '@tailscope/charts';

/**
 * Leaf calls plus what the charts need from them, computed once per load: per fan-out the
 * all-leaves and 95%-of-leaves finishing times and the straggler's host.
 */
export interface Dataset {
  calls: LeafCalls;
  /** A subsample for previews while a slider moves (null when the data is small already). */
  preview: LeafCalls | null;
  allLeavesMs: Float64Array;
  p95LeavesMs: Float64Array;
  stragglerHost: Uint32Array;
}

/**
 * O(calls + fan-outs x width log width). The finishing times are the analysis package's
 * (`fanoutTimes`, DESIGN.md "Leaf finishing time"); a fan-out with no calls counts 0.
 */
export function prepareDataset(calls: LeafCalls): Dataset {
  const fanouts = calls.fanoutOffsets.length - 1;
  // No random leaf is read here: any pick hashes will do.
  const times = fanoutTimes(calls, new Uint32Array(fanouts));
  const zeroIfEmpty = (v: Float64Array): Float64Array => v.map((x) => (Number.isNaN(x) ? 0 : x));
  return {
    calls,
    preview: previewOf(calls),
    allLeavesMs: zeroIfEmpty(times.allLeavesMs),
    p95LeavesMs: zeroIfEmpty(times.p95LeavesMs),
    stragglerHost: stragglerHosts(calls),
  };
}

/** Per fan-out, the host of its latest-finishing call (the first such call on a tie). O(calls). */
function stragglerHosts(calls: LeafCalls): Uint32Array {
  const fanouts = calls.fanoutOffsets.length - 1;
  const host = new Uint32Array(fanouts);
  for (let f = 0; f < fanouts; f++) {
    const a = calls.fanoutOffsets[f] ?? 0;
    const b = calls.fanoutOffsets[f + 1] ?? a;
    let max = -Infinity;
    for (let i = a; i < b; i++) {
      const fin = (calls.startMs[i] ?? 0) + (calls.durationMs[i] ?? 0);
      if (fin > max) {
        max = fin;
        host[f] = calls.host[i] ?? 0;
      }
    }
  }
  return host;
}

/**
 * What a preview replays while a slider is being dragged (the full data once it rests): about
 * PREVIEW_CALLS calls, so its cost does not grow with the fan-out width, and never fewer than
 * PREVIEW_MIN_FANOUTS fan-outs, so its p99 still rests on a few dozen requests.
 */
export const PREVIEW_CALLS = 200_000;
const PREVIEW_MIN_FANOUTS = 2_000;

/** The preview subsample, or null when the data is already that small. */
export function previewOf(calls: LeafCalls): LeafCalls | null {
  const fanouts = calls.fanoutOffsets.length - 1;
  const n = calls.durationMs.length;
  if (fanouts === 0 || n <= PREVIEW_CALLS) return null;
  const max = Math.max(PREVIEW_MIN_FANOUTS, Math.floor((PREVIEW_CALLS * fanouts) / n));
  return max >= fanouts ? null : subsampleFanouts(calls, max);
}

/**
 * Every k-th fan-out (k = ceil(fan-outs / max)), whole, with all its calls: an even spread over
 * the time range, so time windows (hedge draws, probation) keep their shape. Dictionaries are
 * shared. O(calls).
 */
export function subsampleFanouts(c: LeafCalls, max: number): LeafCalls {
  const fanouts = c.fanoutOffsets.length - 1;
  const k = Math.max(1, Math.ceil(fanouts / Math.max(1, max)));
  const picked: number[] = [];
  for (let f = 0; f < fanouts; f += k) picked.push(f);
  let n = 0;
  for (const f of picked) n += (c.fanoutOffsets[f + 1] ?? 0) - (c.fanoutOffsets[f] ?? 0);
  const out: LeafCalls = {
    fanoutOffsets: new Uint32Array(picked.length + 1),
    fanoutStartMs: new Float64Array(picked.length),
    traceIds: picked.map((f) => c.traceIds[f] ?? ''),
    startMs: new Float64Array(n),
    durationMs: new Float64Array(n),
    host: new Uint32Array(n),
    mode: new Uint32Array(n),
    background: new Uint32Array(n),
    hosts: c.hosts,
    modes: c.modes,
    backgrounds: c.backgrounds,
  };
  const queue = c.queueMs ? new Float64Array(n) : undefined;
  let at = 0;
  picked.forEach((f, j) => {
    const a = c.fanoutOffsets[f] ?? 0;
    const b = c.fanoutOffsets[f + 1] ?? a;
    out.fanoutStartMs[j] = c.fanoutStartMs[f] ?? 0;
    out.startMs.set(c.startMs.subarray(a, b), at);
    out.durationMs.set(c.durationMs.subarray(a, b), at);
    out.host.set(c.host.subarray(a, b), at);
    out.mode.set(c.mode.subarray(a, b), at);
    out.background.set(c.background.subarray(a, b), at);
    if (queue && c.queueMs) queue.set(c.queueMs.subarray(a, b), at);
    at += b - a;
    out.fanoutOffsets[j + 1] = at;
  });
  if (queue) out.queueMs = queue;
  // Sampling weights go with their fan-outs (the preview's percentiles stay weighted).
  const w = c.weights;
  if (w) out.weights = Float64Array.from(picked, (f) => w[f] ?? 1);
  return out;
}

export interface LeafCurves {
  oneLeaf: QuantilePoint[];
  p95Leaves: QuantilePoint[];
  allLeaves: QuantilePoint[];
}

/** Distribution curves of a call's, 95% of leaves' and all leaves' finishing times. */
export function leafCurves(d: Dataset): LeafCurves {
  const one = new Float64Array(d.calls.durationMs.length);
  for (let i = 0; i < one.length; i++)
    one[i] = (d.calls.startMs[i] ?? 0) + (d.calls.durationMs[i] ?? 0);
  return {
    oneLeaf: quantileCurve(one.sort()),
    p95Leaves: quantileCurve(Float64Array.from(d.p95LeavesMs).sort()),
    allLeaves: quantileCurve(Float64Array.from(d.allLeavesMs).sort()),
  };
}

export interface ExampleQuery {
  /** Straggler on this host. */
  host?: string;
  /** Fan-out started in [fromMs, toMs) (epoch ms). */
  fromMs?: number;
  toMs?: number;
  /** Prefer the fan-out whose all-leaves time is closest to this, ms; else the slowest. */
  nearMs?: number;
  /** Only fan-outs of this width (calls). */
  width?: number;
}

/**
 * A trace to show as an example: among fan-outs matching the query, the one whose all-leaves
 * time is nearest `nearMs`, or the slowest. O(fan-outs). Undefined when none match.
 */
export function exampleTrace(d: Dataset, q: ExampleQuery): string | undefined {
  const hostIndex = q.host === undefined ? -1 : d.calls.hosts.indexOf(q.host);
  if (q.host !== undefined && hostIndex < 0) return undefined;
  let best = -1;
  let bestScore = Infinity;
  for (let f = 0; f < d.allLeavesMs.length; f++) {
    if (hostIndex >= 0 && d.stragglerHost[f] !== hostIndex) continue;
    if (q.width !== undefined) {
      const n = (d.calls.fanoutOffsets[f + 1] ?? 0) - (d.calls.fanoutOffsets[f] ?? 0);
      if (n !== q.width) continue;
    }
    const t = d.calls.fanoutStartMs[f] ?? 0;
    if (q.fromMs !== undefined && t < q.fromMs) continue;
    if (q.toMs !== undefined && t >= q.toMs) continue;
    const v = d.allLeavesMs[f] ?? 0;
    const score =
      q.nearMs === undefined
        ? -v
        : Math.abs(Math.log(Math.max(v, 1e-6) / Math.max(q.nearMs, 1e-6)));
    if (score < bestScore) {
      bestScore = score;
      best = f;
    }
  }
  return best < 0 ? undefined : d.calls.traceIds[best];
}
