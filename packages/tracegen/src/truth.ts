/** The planted truth of a run: what the analysis should find, in the analysis' own terms. */
import type { AppTruth } from './app-truth';
import { distribution, type Distribution, type LatencySpec } from './distributions';
import { maxWidth } from './model';
import type { LeafHost, Plan } from './plan';
import {
  sharingModes,
  type Correlation,
  type Shape,
  type SharingMode,
  type Slowdown,
  type WidthSpec,
} from './spec';
import { epochMs, unixNanoText } from './time';

export type Dimension = 'host' | 'mode' | 'background';

export type Effect =
  | { kind: 'oversleep'; mode: SharingMode; probability: number; minMs: number; maxMs: number }
  | { kind: 'episode'; host: string; startMs: number; endMs: number; slowdown: Slowdown }
  | { kind: 'background'; activity: string; slowdown: Slowdown | null; hosts: string[] }
  | {
      /** A fault on one pod of an application (spec.app): calls into it factor U(min, max) slower. */
      kind: 'fault';
      service: string;
      host: string;
      startMs: number;
      endMs: number;
      factorMin: number;
      factorMax: number;
    };

export interface ScenarioTruth {
  scenario: string;
  seed: string;
  requests: number;
  start: { unixNano: string; epochMs: number };
  /** Span of request arrivals: requests / ratePerSecond. */
  durationMs: number;
  ratePerSecond: number;
  operation: {
    parentService: string;
    parentOperation: string;
    leafService: string;
    leafOperation: string;
  };
  shape: Shape;
  width: { spec: WidthSpec; min: number; max: number; mean: number };
  correlation: Correlation;
  /** A healthy call: no oversleep, episode or background (the tail components included). */
  leafLatency: Distribution;
  rootHosts: string[];
  hosts: LeafHost[];
  effects: Effect[];
  /** Values the analysis should call causes; `effect` indexes `effects`. */
  causes: { dimension: Dimension; value: string; effect: number }[];
  /** Values present in the data with no effect: the analysis should not flag them. */
  notCauses: { dimension: Dimension; value: string }[];
  decoys: { scope: 'resource' | 'span'; key: string; values: string[]; balanced: boolean }[];
  backgroundWindows: { host: string; activity: string; startMs: number; endMs: number }[];
  episodes: { host: string; startMs: number; endMs: number }[];
  /**
   * Application scenarios (preset `microservices`): every edge's structure, the duplicated
   * spans, the skewed host pair, the ms-truncated service and the fault. The fields above then
   * describe the application's worker-pool edge.
   */
  app?: AppTruth;
  /** The latency law of a call starting at `atMs` (ms after start) on leaf host `host`. */
  callLatency(host: string, atMs: number): Distribution;
}

function widthTruth(w: WidthSpec, shards: number): ScenarioTruth['width'] {
  const max = maxWidth(w, shards);
  switch (w.kind) {
    case 'fixed':
      return { spec: w, min: w.n, max, mean: w.n };
    case 'all':
      return { spec: w, min: shards, max, mean: shards };
    case 'uniform':
      return { spec: w, min: w.min, max, mean: (w.min + w.max) / 2 };
    case 'choice': {
      const weights = w.values.map((_, i) => w.weights?.[i] ?? 1);
      const total = weights.reduce((a, b) => a + b, 0);
      const mean = w.values.reduce((s, v, i) => s + (v * (weights[i] ?? 1)) / total, 0);
      return { spec: w, min: Math.min(...w.values), max, mean };
    }
  }
}

type Planted = Pick<ScenarioTruth, 'effects' | 'causes' | 'notCauses' | 'episodes'>;

/** Every planted effect, and which dimension values it makes causes (or leaves harmless). */
function planted(plan: Plan): Planted {
  const { spec, hosts } = plan;
  const durationMs = plan.durationNs / 1e6;
  const effects: Effect[] = [];
  const causes: ScenarioTruth['causes'] = [];
  const presentModes = new Set(hosts.map((h) => h.sharingMode));
  const affectedModes = new Set<SharingMode>();
  for (const o of spec.oversleep) {
    if (!presentModes.has(o.mode) || o.probability === 0) continue;
    affectedModes.add(o.mode);
    causes.push({ dimension: 'mode', value: o.mode, effect: effects.length });
    effects.push({ kind: 'oversleep', ...o });
  }
  const episodes: ScenarioTruth['episodes'] = [];
  for (const e of spec.episodes) {
    const host = hosts[e.host]?.name ?? '';
    const startMs = e.startFraction * durationMs;
    const endMs = e.endFraction * durationMs;
    episodes.push({ host, startMs, endMs });
    if (!causes.some((c) => c.dimension === 'host' && c.value === host))
      causes.push({ dimension: 'host', value: host, effect: effects.length });
    effects.push({ kind: 'episode', host, startMs, endMs, slowdown: e.slowdown });
  }
  const notCauses: ScenarioTruth['notCauses'] = sharingModes
    .filter((m) => presentModes.has(m) && !affectedModes.has(m))
    .map((value) => ({ dimension: 'mode' as const, value }));
  spec.background.forEach((b, a) => {
    const bgHosts = hosts.filter((_, h) => plan.activities[a]?.windows[h]).map((h) => h.name);
    if (b.slowdown)
      causes.push({ dimension: 'background', value: b.activity, effect: effects.length });
    else notCauses.push({ dimension: 'background', value: b.activity });
    effects.push({
      kind: 'background',
      activity: b.activity,
      slowdown: b.slowdown,
      hosts: bgHosts,
    });
  });
  return { effects, causes, notCauses, episodes };
}

export function buildTruth(plan: Plan): ScenarioTruth {
  const { spec, hosts } = plan;
  const ms = (ns: number) => ns / 1e6;
  const backgroundWindows = plan.windowSpans
    .map((w) => ({
      host: hosts[w.host]?.name ?? '',
      activity: plan.activities[w.activity]?.name ?? '',
      startMs: ms(w.startNs),
      endMs: ms(w.endNs),
    }))
    .sort((x, y) => x.startMs - y.startMs || x.host.localeCompare(y.host));

  return {
    scenario: spec.name,
    seed: plan.seed,
    requests: plan.requests,
    start: { unixNano: unixNanoText(plan.start, 0), epochMs: epochMs(plan.start, 0) },
    durationMs: ms(plan.durationNs),
    ratePerSecond: spec.ratePerSecond,
    operation: {
      parentService: spec.root.service,
      parentOperation: spec.root.operation,
      leafService: spec.leaf.service,
      leafOperation: spec.leaf.operation,
    },
    shape: spec.shape,
    width: widthTruth(spec.width, spec.leaf.shards),
    correlation: spec.correlation,
    leafLatency: distribution(spec.latency),
    rootHosts: plan.rootHosts,
    hosts,
    ...planted(plan),
    decoys: [
      {
        scope: 'resource',
        key: 'deploy.zone',
        values: spec.decoys.zones,
        balanced: zonesBalanced(plan),
      },
      { scope: 'span', key: 'build.id', values: spec.decoys.buildIds, balanced: true },
    ],
    backgroundWindows,
    callLatency: (host, atMs) => callLatency(plan, host, atMs),
  };
}

/**
 * True when every zone holds the same share of every group of hosts that share planted effects,
 * so the zone cannot stand in for a cause.
 */
function zonesBalanced(plan: Plan): boolean {
  const groups = new Map<string, { size: number; zones: Map<string, number> }>();
  const zoneTotals = new Map<string, number>();
  plan.hosts.forEach((h, i) => {
    const key = [
      h.sharingMode,
      plan.episodes[i] ? 1 : 0,
      ...plan.activities.map((a) => (a.slowdown && a.windows[i] ? 1 : 0)),
    ].join();
    const g = groups.get(key) ?? { size: 0, zones: new Map<string, number>() };
    g.size++;
    g.zones.set(h.zone, (g.zones.get(h.zone) ?? 0) + 1);
    groups.set(key, g);
    zoneTotals.set(h.zone, (zoneTotals.get(h.zone) ?? 0) + 1);
  });
  const n = plan.hosts.length;
  return [...groups.values()].every((g) =>
    [...zoneTotals].every(([zone, total]) => (g.zones.get(zone) ?? 0) * n === total * g.size),
  );
}

function callLatency(plan: Plan, hostName: string, atMs: number): Distribution {
  const h = plan.hosts.findIndex((x) => x.name === hostName);
  if (h < 0) throw new RangeError(`callLatency: no leaf host '${hostName}'`);
  const atNs = atMs * 1e6;
  let spec: LatencySpec = plan.spec.latency;
  const p = plan.oversleepP[h] ?? 0;
  if (p > 0) {
    const minMs = plan.oversleepMinMs[h] ?? 0;
    spec = {
      kind: 'oversleep',
      base: spec,
      probability: p,
      minMs,
      maxMs: minMs + (plan.oversleepSpanMs[h] ?? 0),
    };
  }
  plan.spec.episodes.forEach((e, i) => {
    const run = plan.episodes[e.host]?.find((_, k) => k === episodeRank(plan, i));
    if (e.host === h && run && atNs >= run.startNs && atNs < run.endNs)
      spec = { kind: 'slowed', base: spec, ...e.slowdown };
  });
  plan.spec.background.forEach((b, a) => {
    const w = plan.activities[a]?.windows[h];
    if (!b.slowdown || !w) return;
    for (let i = 0; i < w.startNs.length; i++)
      if (atNs >= (w.startNs[i] ?? 0) && atNs < (w.endNs[i] ?? 0))
        spec = { kind: 'slowed', base: spec, ...b.slowdown };
  });
  return distribution(spec);
}

/** Position of spec.episodes[i] among the episodes of its own host. */
function episodeRank(plan: Plan, i: number): number {
  const host = plan.spec.episodes[i]?.host;
  return plan.spec.episodes.slice(0, i).filter((e) => e.host === host).length;
}
