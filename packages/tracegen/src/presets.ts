/** Named scenarios after the papers' figures; every parameter can be overridden. */
import type { LatencySpec } from './distributions';
import { TracegenError, type PresetParams, type ScenarioSpec, type Slowdown } from './spec';
import { microservicesSpec, microservicesSummary } from './preset-microservices';
import { checkWidthFits } from './validate';

export type { PresetParams } from './spec';

interface Preset {
  summary: string;
  build(p: PresetParams): ScenarioSpec;
}

const decoys = {
  zones: ['zone-a', 'zone-b', 'zone-c'],
  buildIds: ['b7f3e21', 'c08d9a4', '4e1a6b0', '91c2f7d'],
};
const timing = { preUs: 50, dispatchGapUs: 2, rttUs: 100, postUs: 50 };
const lognormal = (medianMs: number, sigma: number): LatencySpec => ({
  kind: 'lognormal',
  medianMs,
  sigma,
});
const add = (dist: LatencySpec, factor = 1): Slowdown => ({ factor, addMs: dist });

function base(
  name: string,
  summary: string,
  p: PresetParams,
  d: Pick<ScenarioSpec, 'root' | 'leaf' | 'width' | 'latency' | 'shape'> & Partial<ScenarioSpec>,
): ScenarioSpec {
  return {
    name,
    description: summary,
    defaultRequests: p.requests ?? d.defaultRequests ?? 2000,
    ratePerSecond: p.ratePerSecond ?? d.ratePerSecond ?? 100,
    root: d.root,
    leaf: d.leaf,
    shape: p.shape ?? d.shape,
    width: p.width !== undefined ? { kind: 'fixed', n: p.width } : d.width,
    latency: d.latency,
    correlation: p.correlation ?? d.correlation ?? 'independent',
    sharing: d.sharing ?? { shared: 0, contended: 0 },
    oversleep: d.oversleep ?? [],
    episodes: d.episodes ?? [],
    background: d.background ?? [],
    decoys,
    timing,
  };
}

export const presets = {
  'paper-fanout': {
    summary: 'each request calls all N=100 servers (--width); 1 call in 100 takes 1 s',
    build(p) {
      const n = p.width ?? p.hosts ?? 100;
      return base(
        'paper-fanout',
        this.summary,
        { ...p, width: n },
        {
          ratePerSecond: 50,
          root: { service: 'frontend', operation: 'GET /query', hostPrefix: 'frontend', hosts: 2 },
          leaf: {
            service: 'server',
            operation: 'Query',
            hostPrefix: 'server',
            shards: n,
            replicas: 1,
          },
          shape: 'client-server',
          width: { kind: 'fixed', n },
          latency: {
            kind: 'mixture',
            components: [
              { weight: 0.99, dist: lognormal(10, 0.1) },
              { weight: 0.01, tail: true, dist: { kind: 'fixed', ms: 1000 } },
            ],
          },
        },
      );
    },
  },
  'service-tree': {
    summary: 'root -> 80-120 of 200 leaves, Table-1-like lognormal + 1% tail',
    build(p) {
      return base('service-tree', this.summary, p, {
        root: { service: 'root', operation: 'GET /search', hostPrefix: 'root', hosts: 4 },
        leaf: {
          service: 'leaf',
          operation: 'Search',
          hostPrefix: 'leaf',
          shards: p.hosts ?? 200,
          replicas: 1,
        },
        shape: 'server-only',
        width: { kind: 'uniform', min: 80, max: 120 },
        latency: {
          kind: 'mixture',
          components: [
            { weight: 0.99, dist: lognormal(1, 0.9) },
            { weight: 0.01, tail: true, dist: lognormal(20, 0.6) },
          ],
        },
      });
    },
  },
  bobtail: {
    summary: '30 hosts, 20% contended: 10-30 ms oversleeps on 1.5% of calls',
    build(p) {
      return base('bobtail', this.summary, p, {
        defaultRequests: 3000,
        root: { service: 'web', operation: 'GET /page', hostPrefix: 'web', hosts: 4 },
        leaf: {
          service: 'cache',
          operation: 'Get',
          hostPrefix: 'cache',
          shards: p.hosts ?? 30,
          replicas: 1,
        },
        shape: 'client-server',
        width: { kind: 'fixed', n: 20 },
        latency: lognormal(1, 0.35),
        sharing: { shared: 0.3, contended: 0.2 },
        oversleep: [{ mode: 'contended', probability: 0.015, minMs: 10, maxMs: 30 }],
      });
    },
  },
  'sick-host': {
    summary: 'storage-07 of 24 hosts is x4 + ~15 ms slow from 30% to 60% of the run',
    build(p) {
      const hosts = p.hosts ?? 24;
      return base('sick-host', this.summary, p, {
        defaultRequests: 3000,
        root: { service: 'api', operation: 'GET /feed', hostPrefix: 'api', hosts: 4 },
        leaf: {
          service: 'storage',
          operation: 'Read',
          hostPrefix: 'storage',
          shards: hosts,
          replicas: 1,
        },
        shape: 'client-server',
        width: { kind: 'fixed', n: Math.min(8, hosts) },
        latency: lognormal(2, 0.4),
        episodes: [
          {
            host: Math.min(7, hosts - 1),
            startFraction: 0.3,
            endFraction: 0.6,
            slowdown: add(lognormal(15, 0.5), 4),
          },
        ],
      });
    },
  },
  'background-compaction': {
    summary: 'kv hosts compact 400 ms every ~8 s (+~40 ms); cron does nothing',
    build(p) {
      const window = { everyMs: 8000, durationMs: 400, jitter: 0.2, hostFraction: 1 };
      return base('background-compaction', this.summary, p, {
        defaultRequests: 4000,
        root: { service: 'api', operation: 'GET /timeline', hostPrefix: 'api', hosts: 4 },
        leaf: {
          service: 'kv',
          operation: 'Get',
          hostPrefix: 'kv',
          shards: p.hosts ?? 24,
          replicas: 1,
        },
        shape: 'client-server',
        width: { kind: 'fixed', n: 12 },
        latency: lognormal(2, 0.4),
        background: [
          { activity: 'compaction', ...window, slowdown: add(lognormal(40, 0.4)) },
          { activity: 'cron', ...window, slowdown: null },
        ],
      });
    },
  },
  'bigtable-multiget': {
    summary: '100 shards x 3 replicas, each request reads all; 0.1% heavy tail',
    build(p) {
      const shards = p.hosts ?? p.width ?? 100;
      return base('bigtable-multiget', this.summary, p, {
        ratePerSecond: 50,
        root: { service: 'client', operation: 'MultiGet', hostPrefix: 'client', hosts: 4 },
        leaf: {
          service: 'tablet-server',
          operation: 'Read',
          hostPrefix: 'tablet',
          shards,
          replicas: 3,
        },
        shape: 'client-server',
        width: { kind: 'all' },
        latency: {
          kind: 'mixture',
          components: [
            { weight: 0.999, dist: lognormal(1.5, 0.5) },
            { weight: 0.001, tail: true, dist: lognormal(150, 1) },
          ],
        },
        background: [
          {
            activity: 'compaction',
            everyMs: 30_000,
            durationMs: 200,
            jitter: 0.2,
            hostFraction: 1,
            slowdown: add(lognormal(30, 0.5)),
          },
        ],
      });
    },
  },
  microservices: {
    summary: microservicesSummary,
    build: microservicesSpec,
  },
} satisfies Record<string, Preset>;

export type PresetName = keyof typeof presets;
export const presetNames = Object.keys(presets) as PresetName[];
/** Presets of one root -> leaf fan-out (all but the applications). */
export const fanoutPresetNames = presetNames.filter((n) => n !== 'microservices');

export function isPresetName(name: string): name is PresetName {
  return Object.hasOwn(presets, name);
}

/** One line per preset, for `--help`. */
export function describePresets(): { name: PresetName; summary: string }[] {
  return presetNames.map((name) => ({ name, summary: presets[name].summary }));
}

/** The spec of a preset with overrides; throws TracegenError naming a bad name or parameter. */
export function presetSpec(name: string, params: PresetParams = {}): ScenarioSpec {
  if (!isPresetName(name))
    throw new TracegenError(`unknown scenario '${name}': one of ${presetNames.join(', ')}`);
  checkParams(params);
  const spec = presets[name].build(params);
  checkWidthFits(spec);
  return spec;
}

function checkParams(p: PresetParams): void {
  const positiveInt = (key: 'width' | 'hosts' | 'requests') => {
    const v = p[key];
    if (v !== undefined && (!Number.isInteger(v) || v < 1))
      throw new TracegenError(`${key} must be a positive integer, got ${v}`);
  };
  positiveInt('width');
  positiveInt('hosts');
  positiveInt('requests');
  if (p.width !== undefined && p.width < 2)
    throw new TracegenError(`width must be at least 2 for a fan-out, got ${p.width}`);
  const rate = p.ratePerSecond;
  if (rate !== undefined && !(Number.isFinite(rate) && rate > 0))
    throw new TracegenError(`ratePerSecond must be a positive number, got ${rate}`);
}
