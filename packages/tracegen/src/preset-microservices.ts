/**
 * Preset `microservices`: a HotROD-like application (docs/tracegen.md). `root`, `leaf`, `width`
 * and `latency` describe its worker-pool edge; `app` carries what the application model reads.
 */
import { TracegenError, type PresetParams, type ScenarioSpec } from './spec';

export const microservicesSummary =
  'a HotROD-like app: wrapped INTERNAL HTTP calls, a 10-call/3-worker pool, a parallel fan-out, a sequential loop, duplicates, skew, ms clocks, a fault';

export function microservicesSpec(p: PresetParams): ScenarioSpec {
  if (p.shape !== undefined || p.correlation !== undefined)
    throw new TracegenError('microservices: shape and correlation are fixed by the application');
  const poolCalls = p.width ?? 10;
  const poolWorkers = 3;
  if (poolCalls <= poolWorkers)
    throw new TracegenError(
      `microservices: width (the pool's calls per request) must exceed its ${poolWorkers} workers, got ${poolCalls}`,
    );
  const parallelHosts = p.hosts ?? 4;
  if (parallelHosts < 2)
    throw new TracegenError(
      `microservices: hosts (the parallel fan-out) must be at least 2, got ${parallelHosts}`,
    );
  return {
    name: 'microservices',
    description: microservicesSummary,
    defaultRequests: p.requests ?? 20_000,
    ratePerSecond: p.ratePerSecond ?? 20,
    root: {
      service: 'frontend',
      operation: 'HTTP GET /dispatch',
      hostPrefix: 'frontend',
      hosts: 1,
    },
    leaf: {
      service: 'route',
      operation: 'HTTP GET /route',
      hostPrefix: 'route',
      shards: 1,
      replicas: 1,
    },
    shape: 'client-server',
    width: { kind: 'fixed', n: poolCalls },
    latency: { kind: 'lognormal', medianMs: 5, sigma: 0.35 },
    correlation: 'independent',
    sharing: { shared: 0, contended: 0 },
    oversleep: [],
    episodes: [],
    background: [],
    decoys: { zones: ['zone-a'], buildIds: ['b7f3e21'] },
    timing: { preUs: 100, dispatchGapUs: 5, rttUs: 100, postUs: 100 },
    app: {
      kind: 'microservices',
      poolCalls,
      poolWorkers,
      parallelHosts,
      loopCalls: 10,
      skewMs: 25,
      duplicateEvery: 50,
      fault: { startFraction: 0.4, endFraction: 0.6, factorMin: 10, factorMax: 40 },
    },
  };
}
