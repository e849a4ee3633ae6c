import { describe, expect, it } from 'vitest';
import { simulateRequestWhatIf } from '../answer/simulate';
import { synthesizeRequests } from '../trees/synthetic-requests';

/**
 * Issue 25: trace ids are whatever a client sent (OTLP/JSON, a Collector's table), and the
 * per-trace weights were looked up in a plain object: `constructor`, `__proto__`, `toString`...
 * found Object.prototype's members instead of "no weight", and the weights became NaN.
 */
const PROTOTYPE_NAMES = [
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  '__defineGetter__',
  'toLocaleString',
];
const route = { leafService: 'route', leafOperation: 'HTTP GET /route' };

describe('whole-request replay with trace ids named like Object.prototype members', () => {
  const trees = synthesizeRequests({ requests: 600, workers: 3, seed: 7, routeHosts: 3 });
  PROTOTYPE_NAMES.forEach((name, i) => (trees.traceIds[i * 10] = name));
  const policy = { kind: 'pool', workers: 6 } as const;
  const plain = simulateRequestWhatIf(trees, route, policy, { bootstrapSamples: 50 });

  it('weighs a trace without a weight 1, whatever its id', () => {
    const weighted = simulateRequestWhatIf(trees, route, policy, {
      bootstrapSamples: 50,
      traceWeights: {},
    });
    expect(weighted).toEqual(plain);
  });

  it('reads the weights given to such ids', () => {
    const ones = Object.fromEntries(PROTOTYPE_NAMES.map((n) => [n, 1]));
    const same = simulateRequestWhatIf(trees, route, policy, {
      bootstrapSamples: 50,
      traceWeights: ones,
    });
    expect(same).toEqual(plain);
    const heavy = Object.fromEntries(PROTOTYPE_NAMES.map((n) => [n, 1000]));
    const r = simulateRequestWhatIf(trees, route, policy, {
      bootstrapSamples: 50,
      traceWeights: heavy,
    });
    expect(Number.isFinite(r.whatIf.p99.value)).toBe(true);
    expect(Number.isFinite(r.request.whatIf.p99.value)).toBe(true);
    expect(r).not.toEqual(plain);
  });
});
