/** Checks a spec's `app` (an application scenario such as `microservices`). */
import type { AppSpec } from './spec';
import { fail, num, obj, oneOf } from './validate-fields';

export function validateApp(v: unknown): AppSpec {
  const o = obj(v, 'app');
  const count = { min: 2, max: 1000, int: true };
  const fault = obj(o.fault, 'app.fault');
  const startFraction = num(fault, 'startFraction', 'app.fault', { min: 0, max: 1 });
  const factorMin = num(fault, 'factorMin', 'app.fault', { min: 1 });
  const app: AppSpec = {
    kind: oneOf(o, 'kind', 'app', ['microservices'] as const),
    poolCalls: num(o, 'poolCalls', 'app', count),
    poolWorkers: num(o, 'poolWorkers', 'app', count),
    parallelHosts: num(o, 'parallelHosts', 'app', count),
    loopCalls: num(o, 'loopCalls', 'app', count),
    skewMs: num(o, 'skewMs', 'app', { min: 1, max: 60_000 }),
    duplicateEvery: num(o, 'duplicateEvery', 'app', { min: 3, int: true }),
    fault: {
      startFraction,
      endFraction: num(fault, 'endFraction', 'app.fault', { above: startFraction, max: 1 }),
      factorMin,
      factorMax: num(fault, 'factorMax', 'app.fault', { min: factorMin }),
    },
  };
  if (app.poolWorkers >= app.poolCalls) fail('app.poolWorkers', 'must be below app.poolCalls');
  return app;
}
