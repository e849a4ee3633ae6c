/**
 * Everything about a run that is fixed before the first request: hosts and their sharing modes,
 * decoy zones, sick-host episodes and background windows (each with its span ids). The request
 * model reads it; the truth describes it.
 */
import { compileSampler, type Sampler } from './distributions';
import { Rng, stream } from './random';
import {
  sharingModes,
  TracegenError,
  type ScenarioSpec,
  type SharingMode,
  type Slowdown,
} from './spec';
import { defaultStart, parseStart, type StartInput, type StartTime } from './time';

export interface GeneratorOptions {
  /** Root requests (fan-outs). */
  requests: number;
  /** Integer or text; default 1. */
  seed?: number | string;
  /** ISO text, epoch ms, Date, epoch ns as bigint, or 'now' with `now` given. */
  start?: StartInput;
  /** A batch closes at the first whole trace that reaches this many spans; default 1000. */
  spansPerBatch?: number;
  /** The clock, only consulted for start 'now'. */
  now?: () => number;
}

export interface LeafHost {
  name: string;
  sharingMode: SharingMode;
  zone: string;
  shard: number;
  replica: number;
}

export interface CompiledSlowdown {
  factor: number;
  add: Sampler | null;
}

export interface EpisodeRun {
  startNs: number;
  endNs: number;
  slowdown: CompiledSlowdown;
}

export interface Activity {
  name: string;
  slowdown: CompiledSlowdown | null;
  /** Per leaf host: its windows sorted by start (null if the host does not run it). */
  windows: ({ startNs: Float64Array; endNs: Float64Array } | null)[];
}

export interface WindowSpan {
  host: number;
  activity: number;
  startNs: number;
  endNs: number;
  traceId: Uint8Array;
  spanId: Uint8Array;
}

export interface Plan {
  spec: ScenarioSpec;
  seed: string;
  requests: number;
  start: StartTime;
  spansPerBatch: number;
  /** Mean gap between root requests. */
  intervalNs: number;
  durationNs: number;
  rootHosts: string[];
  hosts: LeafHost[];
  /** Per leaf host: oversleep probability and range (0 probability: none). */
  oversleepP: Float64Array;
  oversleepMinMs: Float64Array;
  oversleepSpanMs: Float64Array;
  episodes: (EpisodeRun[] | null)[];
  activities: Activity[];
  /** Background spans in the order they are emitted (by end time). */
  windowSpans: WindowSpan[];
}

function compileSlowdown(s: Slowdown): CompiledSlowdown {
  return { factor: s.factor, add: s.addMs ? compileSampler(s.addMs) : null };
}

function positiveInt(v: number, name: string): number {
  if (!Number.isInteger(v) || v < 1)
    throw new TracegenError(`${name} must be a positive integer, got ${v}`);
  return v;
}

/** Seeded Fisher-Yates permutation of 0..n-1. */
function shuffled(n: number, rng: Rng): number[] {
  const a = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [a[i], a[j]] = [a[j] ?? 0, a[i] ?? 0];
  }
  return a;
}

function pad(n: number, count: number): string {
  return String(n).padStart(Math.max(2, String(count - 1).length), '0');
}

export function createPlan(spec: ScenarioSpec, options: GeneratorOptions): Plan {
  const requests = positiveInt(options.requests, 'requests');
  const spansPerBatch = positiveInt(options.spansPerBatch ?? 1000, 'spansPerBatch');
  const seed = String(options.seed ?? 1);
  const start = parseStart(options.start ?? defaultStart, options.now);
  const intervalNs = 1e9 / spec.ratePerSecond;
  const durationNs = requests * intervalNs;
  const { shards, replicas } = spec.leaf;
  const hostCount = shards * replicas;

  const modes = assignModes(spec, hostCount, stream(seed, 'modes'));
  const episodes = planEpisodes(spec, hostCount, durationNs);
  const activities = spec.background.map((b, a) =>
    planActivity(spec, a, hostCount, durationNs, seed),
  );
  const hostNames = Array.from({ length: hostCount }, (_, h) => {
    const shard = Math.floor(h / replicas);
    const base = `${spec.leaf.hostPrefix}-${pad(shard, shards)}`;
    return replicas > 1 ? `${base}-r${h % replicas}` : base;
  });
  const zones = assignZones(spec, modes, episodes, activities);
  const hosts = hostNames.map((name, h) => ({
    name,
    sharingMode: modes[h] ?? 'dedicated',
    zone: zones[h] ?? '',
    shard: Math.floor(h / replicas),
    replica: h % replicas,
  }));

  return {
    spec,
    seed,
    requests,
    start,
    spansPerBatch,
    intervalNs,
    durationNs,
    rootHosts: Array.from(
      { length: spec.root.hosts },
      (_, i) => `${spec.root.hostPrefix}-${pad(i, spec.root.hosts)}`,
    ),
    hosts,
    ...planOversleep(spec, hosts),
    episodes,
    activities,
    windowSpans: windowSpans(activities, seed),
  };
}

function planEpisodes(spec: ScenarioSpec, hostCount: number, durationNs: number) {
  const episodes: (EpisodeRun[] | null)[] = Array.from({ length: hostCount }, () => null);
  for (const e of spec.episodes) {
    const runs = (episodes[e.host] ??= []);
    runs.push({
      startNs: Math.round(e.startFraction * durationNs),
      endNs: Math.round(e.endFraction * durationNs),
      slowdown: compileSlowdown(e.slowdown),
    });
  }
  return episodes;
}

function planOversleep(spec: ScenarioSpec, hosts: LeafHost[]) {
  const oversleepP = new Float64Array(hosts.length);
  const oversleepMinMs = new Float64Array(hosts.length);
  const oversleepSpanMs = new Float64Array(hosts.length);
  for (const o of spec.oversleep)
    hosts.forEach((host, h) => {
      if (host.sharingMode !== o.mode) return;
      oversleepP[h] = o.probability;
      oversleepMinMs[h] = o.minMs;
      oversleepSpanMs[h] = o.maxMs - o.minMs;
    });
  return { oversleepP, oversleepMinMs, oversleepSpanMs };
}

function assignModes(spec: ScenarioSpec, hostCount: number, rng: Rng): SharingMode[] {
  const contended = Math.round(spec.sharing.contended * hostCount);
  const shared = Math.min(hostCount - contended, Math.round(spec.sharing.shared * hostCount));
  const modes: SharingMode[] = Array.from({ length: hostCount }, () => 'dedicated');
  shuffled(hostCount, rng).forEach((h, rank) => {
    if (rank < contended) modes[h] = 'contended';
    else if (rank < contended + shared) modes[h] = 'shared';
  });
  return modes;
}

/**
 * Decoy zones, dealt round-robin within each group of hosts that share the same planted effects,
 * so a zone holds the same share of every cause (exactly, when group sizes divide evenly).
 */
function assignZones(
  spec: ScenarioSpec,
  modes: SharingMode[],
  episodes: (EpisodeRun[] | null)[],
  activities: Activity[],
): string[] {
  const key = (h: number) =>
    [
      sharingModes.indexOf(modes[h] ?? 'dedicated'),
      episodes[h] ? 1 : 0,
      ...activities.map((a) => (a.slowdown && a.windows[h] ? 1 : 0)),
    ].join('');
  const order = modes.map((_, h) => h).sort((x, y) => key(x).localeCompare(key(y)) || x - y);
  const zones: string[] = [];
  const z = spec.decoys.zones;
  order.forEach((h, i) => (zones[h] = z[i % z.length] ?? ''));
  return zones;
}

function planActivity(
  spec: ScenarioSpec,
  a: number,
  hostCount: number,
  durationNs: number,
  seed: string,
): Activity {
  const b = spec.background[a];
  if (!b) throw new TracegenError(`background[${a}] missing`);
  const chosen = new Set(
    shuffled(hostCount, stream(seed, `background-hosts/${a}`)).slice(
      0,
      Math.max(1, Math.round(b.hostFraction * hostCount)),
    ),
  );
  const everyNs = b.everyMs * 1e6;
  const lengthNs = Math.round(b.durationMs * 1e6);
  const windows = Array.from({ length: hostCount }, (_, h) => {
    if (!chosen.has(h)) return null;
    const rng = stream(seed, `background/${a}/${h}`);
    const starts: number[] = [];
    for (let t = rng.float() * everyNs; t < durationNs;) {
      starts.push(Math.round(t));
      t += everyNs * (1 + b.jitter * (2 * rng.float() - 1));
    }
    return {
      startNs: Float64Array.from(starts),
      endNs: Float64Array.from(starts, (s) => s + lengthNs),
    };
  });
  return { name: b.activity, slowdown: b.slowdown ? compileSlowdown(b.slowdown) : null, windows };
}

function windowSpans(activities: Activity[], seed: string): WindowSpan[] {
  const spans: Omit<WindowSpan, 'traceId' | 'spanId'>[] = [];
  activities.forEach((act, activity) => {
    act.windows.forEach((w, host) => {
      if (!w) return;
      w.startNs.forEach((startNs, i) =>
        spans.push({ host, activity, startNs, endNs: w.endNs[i] ?? startNs }),
      );
    });
  });
  spans.sort((x, y) => x.endNs - y.endNs || x.host - y.host || x.activity - y.activity);
  const ids = stream(seed, 'background-ids');
  return spans.map((s) => {
    const traceId = new Uint8Array(16);
    const spanId = new Uint8Array(8);
    ids.fill(traceId, 0, 16);
    ids.fill(spanId, 0, 8);
    return { ...s, traceId, spanId };
  });
}
