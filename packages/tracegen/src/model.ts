/**
 * The request model: draws each request's arrival, width, hosts and call latencies with all
 * planted effects, in a fixed order from three streams (arrivals, calls, ids), so request i is
 * the same whatever follows it and whatever the output format.
 */
import type { SpanBatch } from './batch';
import { compileSampler, componentPicker, type Sampler } from './distributions';
import { CallEffect } from './effects';
import type { Activity, CompiledSlowdown, Plan } from './plan';
import { stream, type Rng } from './random';
import type { WidthSpec } from './spec';

export function maxWidth(w: WidthSpec, shards: number): number {
  switch (w.kind) {
    case 'fixed':
      return w.n;
    case 'uniform':
      return w.max;
    case 'choice':
      return Math.max(...w.values);
    case 'all':
      return shards;
  }
}

function widthPicker(w: WidthSpec, shards: number): (rng: Rng) => number {
  switch (w.kind) {
    case 'fixed':
      return () => w.n;
    case 'uniform':
      return (rng) => w.min + rng.int(w.max - w.min + 1);
    case 'choice': {
      const pick = componentPicker({
        components: w.values.map((_, i) => ({ weight: w.weights?.[i] ?? 1 })),
      });
      return (rng) => w.values[pick(rng.float())] ?? w.values[0] ?? 1;
    }
    case 'all':
      return () => shards;
  }
}

/** Does any window in `w` (sorted, non-overlapping) overlap [s, e)? */
function overlaps(w: { startNs: Float64Array; endNs: Float64Array }, s: number, e: number) {
  const st = w.startNs;
  let lo = 0;
  let hi = st.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((st[mid] ?? 0) < e) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && (w.endNs[lo - 1] ?? 0) > s;
}

export class RequestModel {
  private readonly arrivals: Rng;
  private readonly calls: Rng;
  private readonly ids: Rng;
  private readonly width: (rng: Rng) => number;
  private readonly pickComponent: (u: number) => number;
  private readonly samplers: Sampler[];
  private readonly tail: boolean[];
  private readonly perm: Uint32Array;
  private readonly slowing: { index: number; activity: Activity; slowdown: CompiledSlowdown }[];

  constructor(private readonly plan: Plan) {
    this.arrivals = stream(plan.seed, 'arrivals');
    this.calls = stream(plan.seed, 'calls');
    this.ids = stream(plan.seed, 'ids');
    const spec = plan.spec;
    this.width = widthPicker(spec.width, spec.leaf.shards);
    const components =
      spec.latency.kind === 'mixture'
        ? spec.latency.components
        : [{ weight: 1, dist: spec.latency }];
    this.pickComponent = componentPicker({ components });
    this.samplers = components.map((c) => compileSampler(c.dist));
    this.tail = components.map((c) => 'tail' in c && c.tail);
    this.perm = Uint32Array.from({ length: spec.leaf.shards }, (_, i) => i);
    this.slowing = plan.activities.flatMap((activity, index) =>
      activity.slowdown ? [{ index, activity, slowdown: activity.slowdown }] : [],
    );
  }

  /** Appends request `i` (its root, calls and ids) to `b`. */
  next(b: SpanBatch, i: number): void {
    const { plan, calls: rng, ids } = this;
    const spec = plan.spec;
    const r = b.requestCount;
    const startNs = Math.round((i + this.arrivals.float()) * plan.intervalNs);
    const width = this.width(rng);
    const shards = spec.leaf.shards;
    const replicas = spec.leaf.replicas;
    const clientServer = spec.shape === 'client-server';
    const requestComponent = this.pickComponent(rng.float());
    const perRequest = spec.correlation === 'request';
    const firstNs = startNs + Math.round(spec.timing.preUs * 1e3);
    const gapNs = Math.round(spec.timing.dispatchGapUs * 1e3);
    let endNs = firstNs;

    b.reqStartNs[r] = startNs;
    b.rootHost[r] = i % plan.rootHosts.length;
    ids.fill(b.traceIds, 16 * r, 16);
    ids.fill(b.rootSpanIds, 8 * r, 8);
    for (let k = 0; k < width; k++) {
      let shard = k;
      if (width < shards) {
        // Partial Fisher-Yates: k distinct shards, uniform, O(width).
        const j = k + rng.int(shards - k);
        const p = this.perm;
        shard = p[j] ?? 0;
        p[j] = p[k] ?? 0;
        p[k] = shard;
      }
      const host = replicas > 1 ? shard * replicas + rng.int(replicas) : shard;
      const c = b.callCount++;
      const s = firstNs + k * gapNs;
      const comp = perRequest ? requestComponent : this.pickComponent(rng.float());
      const ms = this.latency(host, s, comp);
      const e = s + Math.max(1000, Math.round(ms * 1e6));
      b.callRequest[c] = r;
      b.callHost[c] = host;
      b.callStartNs[c] = s;
      b.callEndNs[c] = e;
      b.callEffects[c] = this.effects;
      b.callBackground[c] = this.backgroundAt(host, s, e);
      b.callBuild[c] = rng.int(spec.decoys.buildIds.length);
      this.placeServerSpan(b, c, clientServer);
      if (e > endNs) endNs = e;
    }
    b.reqEndNs[r] = endNs + Math.round(spec.timing.postUs * 1e3);
    b.requestCount = r + 1;
    b.callOffset[r + 1] = b.callCount;
    b.spanCount += 1 + width * (clientServer ? 2 : 1);
  }

  /** Places call c's SERVER span (and draws the span ids of the call). */
  private placeServerSpan(b: SpanBatch, c: number, clientServer: boolean): void {
    const s = b.callStartNs[c] ?? 0;
    const e = b.callEndNs[c] ?? 0;
    if (clientServer) {
      // The SERVER span sits inside the CLIENT span, a network half-trip from each end.
      const rng = this.calls;
      const halfRttNs = (this.plan.spec.timing.rttUs * 1e3) / 2;
      let d1 = Math.round(halfRttNs * (0.5 + rng.float()));
      let d2 = Math.round(halfRttNs * (0.5 + rng.float()));
      if (d1 + d2 > (e - s) / 2) d1 = d2 = Math.floor((e - s) / 4);
      b.serverStartNs[c] = s + d1;
      b.serverEndNs[c] = e - d2;
      this.ids.fill(b.clientSpanIds, 8 * c, 8);
    } else {
      b.serverStartNs[c] = s;
      b.serverEndNs[c] = e;
    }
    this.ids.fill(b.serverSpanIds, 8 * c, 8);
  }

  /** CallEffect bits of the call latency() last drew (a field: no object per call). */
  private effects = 0;

  /** A call's latency in ms with every planted effect, applied in the documented order. */
  private latency(host: number, s: number, comp: number): number {
    const { plan, calls: rng } = this;
    let ms = (this.samplers[comp] ?? this.samplers[0] ?? (() => 0))(rng);
    let effects = this.tail[comp] ? CallEffect.tail : 0;
    const p = plan.oversleepP[host] ?? 0;
    if (p > 0 && rng.float() < p) {
      ms += (plan.oversleepMinMs[host] ?? 0) + (plan.oversleepSpanMs[host] ?? 0) * rng.float();
      effects |= CallEffect.oversleep;
    }
    for (const run of plan.episodes[host] ?? []) {
      if (s >= run.startNs && s < run.endNs) {
        ms = slow(ms, run.slowdown, rng);
        effects |= CallEffect.episode;
      }
    }
    // A window slows a call its (so far) unslowed interval overlaps; repeat, since being slowed
    // can stretch the call into another activity's window, so overlap <=> slowed stays exact.
    let applied = 0;
    for (let changed = this.slowing.length > 0; changed;) {
      changed = false;
      for (const { index, activity, slowdown } of this.slowing) {
        const w = activity.windows[host];
        if (!w || applied & (1 << index)) continue;
        if (overlaps(w, s, s + Math.max(1000, Math.round(ms * 1e6)))) {
          ms = slow(ms, slowdown, rng);
          applied |= 1 << index;
          effects |= CallEffect.background;
          changed = true;
        }
      }
    }
    this.effects = effects;
    return ms;
  }

  private backgroundAt(host: number, s: number, e: number): number {
    const acts = this.plan.activities;
    for (let a = 0; a < acts.length; a++) {
      const w = acts[a]?.windows[host];
      if (w && overlaps(w, s, e)) return a + 1;
    }
    return 0;
  }
}

function slow(ms: number, s: CompiledSlowdown, rng: Rng): number {
  return ms * s.factor + (s.add ? s.add(rng) : 0);
}
