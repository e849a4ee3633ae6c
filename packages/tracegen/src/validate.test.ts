import { describe, expect, it } from 'vitest';
import { createGenerator, presetNames, presetSpec, TracegenError, validateSpec } from './index';

describe('presets', () => {
  it.each(presetNames)('%s validates as a spec and round-trips through JSON', (name) => {
    const spec = presetSpec(name);
    expect(validateSpec(JSON.parse(JSON.stringify(spec)))).toEqual(spec);
  });

  it('names the bad scenario or parameter', () => {
    expect(() => presetSpec('nope')).toThrow(/unknown scenario 'nope': one of paper-fanout/);
    expect(() => presetSpec('bobtail', { width: 0 })).toThrow(/width must be/);
    expect(() => presetSpec('bobtail', { width: 31 })).toThrow(
      /width \(up to 31\) exceeds leaf.shards \(30\)/,
    );
    expect(() => presetSpec('bobtail', { ratePerSecond: -1 })).toThrow(/ratePerSecond/);
    expect(() => createGenerator(presetSpec('bobtail'), { requests: 0 })).toThrow(
      /requests must be/,
    );
    expect(() =>
      createGenerator(presetSpec('bobtail'), { requests: 1, start: 'yesterday' }),
    ).toThrow(/start must be/);
  });

  it('paper-fanout takes N servers from --width', () => {
    const spec = presetSpec('paper-fanout', { width: 1000 });
    expect(spec.leaf.shards).toBe(1000);
    expect(spec.width).toEqual({ kind: 'fixed', n: 1000 });
  });
});

describe('validateSpec', () => {
  const good = () =>
    JSON.parse(JSON.stringify(presetSpec('background-compaction'))) as Record<string, unknown>;

  it.each([
    ['latency', { kind: 'lognormal', medianMs: -1, sigma: 1 }, /latency.medianMs must be > 0/],
    ['latency', { kind: 'gamma' }, /latency.kind must be one of/],
    ['width', { kind: 'uniform', min: 5, max: 2 }, /width.max must be >= 5/],
    ['shape', 'tree', /spec.shape must be one of client-server, server-only/],
    [
      'background',
      [{ activity: 'gc', everyMs: 100, durationMs: 200, jitter: 0, hostFraction: 1 }],
      /background\[0\].durationMs must be <= 100/,
    ],
    [
      'episodes',
      [{ host: 99, startFraction: 0.1, endFraction: 0.2, slowdown: { factor: 2 } }],
      /episodes\[0\].host must be <= 23/,
    ],
    ['decoys', { zones: [], buildIds: ['x'] }, /decoys.zones must not be empty/],
  ])('%s: %j is refused with a message naming the field', (key, value, message) => {
    const spec = good();
    spec[key] = value;
    expect(() => validateSpec(spec)).toThrow(TracegenError);
    expect(() => validateSpec(spec)).toThrow(message);
  });
});

describe('validateSpec: app', () => {
  const app = () =>
    JSON.parse(JSON.stringify(presetSpec('microservices'))) as Record<string, unknown>;
  const withApp = (patch: Record<string, unknown>) => {
    const spec = app();
    spec.app = { ...(spec.app as Record<string, unknown>), ...patch };
    return spec;
  };

  it('refuses a pool no smaller than its calls, an unknown kind and a backwards fault', () => {
    expect(() => validateSpec(withApp({ poolWorkers: 10 }))).toThrow(
      /app.poolWorkers must be below app.poolCalls/,
    );
    expect(() => validateSpec(withApp({ kind: 'monolith' }))).toThrow(/app.kind must be one of/);
    expect(() =>
      validateSpec(
        withApp({ fault: { startFraction: 0.6, endFraction: 0.4, factorMin: 10, factorMax: 40 } }),
      ),
    ).toThrow(/app.fault.endFraction must be > 0.6/);
  });

  it('microservices takes the pool calls from width and the parallel hosts from hosts', () => {
    const spec = presetSpec('microservices', { width: 12, hosts: 6 });
    expect(spec.app).toMatchObject({ poolCalls: 12, poolWorkers: 3, parallelHosts: 6 });
    expect(() => presetSpec('microservices', { width: 3 })).toThrow(/must exceed its 3 workers/);
    expect(() => presetSpec('microservices', { shape: 'server-only' })).toThrow(/fixed/);
  });
});
