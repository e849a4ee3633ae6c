/** Checks untrusted JSON (a `--spec` file) into a ScenarioSpec; errors name the bad field. */
import type { LatencySpec } from './distributions';
import {
  sharingModes,
  TracegenError,
  type BackgroundSpec,
  type EpisodeSpec,
  type OversleepSpec,
  type ScenarioSpec,
  type Slowdown,
  type WidthSpec,
} from './spec';

import { validateApp } from './validate-app';
import { arr, fail, num, obj, oneOf, str, type Obj } from './validate-fields';

function validateLatency(v: unknown, path: string): LatencySpec {
  const o = obj(v, path);
  const kind = oneOf(o, 'kind', path, [
    'fixed',
    'lognormal',
    'uniform',
    'pareto',
    'mixture',
    'slowed',
    'oversleep',
  ] as const);
  switch (kind) {
    case 'fixed':
      return { kind, ms: num(o, 'ms', path, { min: 0 }) };
    case 'lognormal':
      return {
        kind,
        medianMs: num(o, 'medianMs', path, { above: 0 }),
        sigma: num(o, 'sigma', path, { above: 0 }),
      };
    case 'uniform': {
      const minMs = num(o, 'minMs', path, { min: 0 });
      return { kind, minMs, maxMs: num(o, 'maxMs', path, { above: minMs }) };
    }
    case 'pareto':
      return {
        kind,
        scaleMs: num(o, 'scaleMs', path, { above: 0 }),
        alpha: num(o, 'alpha', path, { above: 0 }),
      };
    case 'mixture': {
      const list = arr(o.components, `${path}.components`);
      if (list.length === 0) fail(`${path}.components`, 'must not be empty');
      return {
        kind,
        components: list.map((c, i) => {
          const p = `${path}.components[${i}]`;
          const co = obj(c, p);
          const weight = num(co, 'weight', p, { above: 0 });
          const dist = validateLatency(co.dist, `${p}.dist`);
          return co.tail === true ? { weight, tail: true, dist } : { weight, dist };
        }),
      };
    }
    case 'slowed': {
      const s = validateSlowdown(o, path);
      return { kind, base: validateLatency(o.base, `${path}.base`), ...s };
    }
    case 'oversleep': {
      const minMs = num(o, 'minMs', path, { min: 0 });
      return {
        kind,
        base: validateLatency(o.base, `${path}.base`),
        probability: num(o, 'probability', path, { min: 0, max: 1 }),
        minMs,
        maxMs: num(o, 'maxMs', path, { above: minMs }),
      };
    }
  }
}

function validateSlowdown(o: Obj, path: string): Slowdown {
  return {
    factor: num(o, 'factor', path, { above: 0 }),
    addMs:
      o.addMs === null || o.addMs === undefined ? null : validateLatency(o.addMs, `${path}.addMs`),
  };
}

function validateWidth(v: unknown, path: string): WidthSpec {
  const o = obj(v, path);
  const kind = oneOf(o, 'kind', path, ['fixed', 'uniform', 'choice', 'all'] as const);
  const pos = { min: 1, int: true };
  switch (kind) {
    case 'fixed':
      return { kind, n: num(o, 'n', path, pos) };
    case 'uniform': {
      const min = num(o, 'min', path, pos);
      return { kind, min, max: num(o, 'max', path, { min, int: true }) };
    }
    case 'choice': {
      const values = arr(o.values, `${path}.values`).map((_, i) =>
        num(o.values as Obj, String(i), `${path}.values`, pos),
      );
      if (values.length === 0) fail(`${path}.values`, 'must not be empty');
      if (o.weights === undefined) return { kind, values };
      const weights = arr(o.weights, `${path}.weights`).map((_, i) =>
        num(o.weights as Obj, String(i), `${path}.weights`, { above: 0 }),
      );
      if (weights.length !== values.length)
        fail(`${path}.weights`, 'must have one weight per value');
      return { kind, values, weights };
    }
    case 'all':
      return { kind };
  }
}

function validateOversleep(v: unknown, path: string): OversleepSpec {
  const o = obj(v, path);
  const minMs = num(o, 'minMs', path, { min: 0 });
  return {
    mode: oneOf(o, 'mode', path, sharingModes),
    probability: num(o, 'probability', path, { min: 0, max: 1 }),
    minMs,
    maxMs: num(o, 'maxMs', path, { above: minMs }),
  };
}

function validateEpisode(v: unknown, path: string, hosts: number): EpisodeSpec {
  const o = obj(v, path);
  const startFraction = num(o, 'startFraction', path, { min: 0, max: 1 });
  return {
    host: num(o, 'host', path, { min: 0, max: hosts - 1, int: true }),
    startFraction,
    endFraction: num(o, 'endFraction', path, { above: startFraction, max: 1 }),
    slowdown: validateSlowdown(obj(o.slowdown, `${path}.slowdown`), `${path}.slowdown`),
  };
}

function validateBackground(v: unknown, path: string): BackgroundSpec {
  const o = obj(v, path);
  const everyMs = num(o, 'everyMs', path, { above: 0 });
  const jitter = num(o, 'jitter', path, { min: 0, max: 0.9 });
  return {
    activity: str(o, 'activity', path),
    everyMs,
    // Windows of one activity on one host never overlap each other.
    durationMs: num(o, 'durationMs', path, { above: 0, max: everyMs * (1 - jitter) }),
    jitter,
    hostFraction: num(o, 'hostFraction', path, { above: 0, max: 1 }),
    slowdown:
      o.slowdown === null || o.slowdown === undefined
        ? null
        : validateSlowdown(obj(o.slowdown, `${path}.slowdown`), `${path}.slowdown`),
  };
}

function strings(v: unknown, path: string): string[] {
  const list = arr(v, path);
  if (list.length === 0) fail(path, 'must not be empty');
  return list.map((s, i) => {
    if (typeof s !== 'string' || s === '') fail(`${path}[${i}]`, 'must be a non-empty string');
    return s;
  });
}

function validateRoot(v: unknown): ScenarioSpec['root'] {
  const root = obj(v, 'root');
  return {
    service: str(root, 'service', 'root'),
    operation: str(root, 'operation', 'root'),
    hostPrefix: str(root, 'hostPrefix', 'root'),
    hosts: num(root, 'hosts', 'root', { min: 1, int: true }),
  };
}

function validateLeaf(v: unknown): ScenarioSpec['leaf'] {
  const leaf = obj(v, 'leaf');
  return {
    service: str(leaf, 'service', 'leaf'),
    operation: str(leaf, 'operation', 'leaf'),
    hostPrefix: str(leaf, 'hostPrefix', 'leaf'),
    shards: num(leaf, 'shards', 'leaf', { min: 1, int: true }),
    replicas: num(leaf, 'replicas', 'leaf', { min: 1, int: true }),
  };
}

function validateTiming(v: unknown): ScenarioSpec['timing'] {
  const timing = obj(v, 'timing');
  const us = { min: 0 };
  return {
    preUs: num(timing, 'preUs', 'timing', us),
    dispatchGapUs: num(timing, 'dispatchGapUs', 'timing', us),
    rttUs: num(timing, 'rttUs', 'timing', us),
    postUs: num(timing, 'postUs', 'timing', us),
  };
}

/** Validates a whole spec; throws TracegenError naming the first bad field. */
export function validateSpec(v: unknown): ScenarioSpec {
  const o = obj(v, 'spec');
  const leaf = validateLeaf(o.leaf);
  const sharing = obj(o.sharing, 'sharing');
  const shared = num(sharing, 'shared', 'sharing', { min: 0, max: 1 });
  const decoys = obj(o.decoys, 'decoys');
  const spec: ScenarioSpec = {
    name: str(o, 'name', 'spec'),
    description: typeof o.description === 'string' ? o.description : '',
    defaultRequests: num(o, 'defaultRequests', 'spec', { min: 1, int: true }),
    ratePerSecond: num(o, 'ratePerSecond', 'spec', { above: 0 }),
    root: validateRoot(o.root),
    leaf,
    shape: oneOf(o, 'shape', 'spec', ['client-server', 'server-only'] as const),
    width: validateWidth(o.width, 'width'),
    latency: validateLatency(o.latency, 'latency'),
    correlation: oneOf(o, 'correlation', 'spec', ['independent', 'request'] as const),
    sharing: {
      shared,
      contended: num(sharing, 'contended', 'sharing', { min: 0, max: 1 - shared }),
    },
    oversleep: arr(o.oversleep ?? [], 'oversleep').map((e, i) =>
      validateOversleep(e, `oversleep[${i}]`),
    ),
    episodes: arr(o.episodes ?? [], 'episodes').map((e, i) =>
      validateEpisode(e, `episodes[${i}]`, leaf.shards * leaf.replicas),
    ),
    background: arr(o.background ?? [], 'background').map((e, i) =>
      validateBackground(e, `background[${i}]`),
    ),
    decoys: {
      zones: strings(decoys.zones, 'decoys.zones'),
      buildIds: strings(decoys.buildIds, 'decoys.buildIds'),
    },
    timing: validateTiming(o.timing),
    ...(o.app !== undefined && { app: validateApp(o.app) }),
  };
  // The model tracks applied activities in a 31-bit mask.
  if (spec.background.length > 16) fail('background', 'must list at most 16 activities');
  checkWidthFits(spec);
  return spec;
}

/** Each call of a fan-out goes to a distinct shard, so the width cannot exceed the shards. */
export function checkWidthFits(spec: ScenarioSpec): void {
  // An application's pool edge calls one service many times, not distinct shards.
  if (spec.app) return;
  const w = spec.width;
  const max =
    w.kind === 'fixed'
      ? w.n
      : w.kind === 'uniform'
        ? w.max
        : w.kind === 'choice'
          ? Math.max(...w.values)
          : 1;
  if (max > spec.leaf.shards)
    throw new TracegenError(
      `scenario spec: width (up to ${max}) exceeds leaf.shards (${spec.leaf.shards}): each call of a fan-out goes to a distinct shard`,
    );
}
