import { describe, expect, it } from 'vitest';
import { layoutServiceMap } from '@tailscope/charts';
import { decodeEdgesMap, toMapEdges } from './edges-map';

/** A contract-shaped /api/v1/edges answer over 60 s (HotROD-like, two route operations). */
const edge = (
  parentService: string,
  leafService: string,
  leafOperation: string,
  requests: number,
  perRequest: number,
  structure: string,
  p99: number,
) => ({
  parentService,
  parentOperation: 'HTTP GET /dispatch',
  leafService,
  leafOperation,
  requests,
  calls: requests * perRequest,
  callsPerRequest: { p50: perRequest, max: perRequest },
  structure,
  structureShares: { parallel: 0, pool: 1, sequential: 0, single: 0 },
  concurrency: { p50: 3, max: 3 },
  callLatency: { p50: p99 / 2, p95: p99 * 0.9, p99, p999: p99 },
  shareOfParent: { p50: 0.2, p95: 0.3, p99: 0.4, p999: 0.5 },
});
const fixture = {
  from: 0,
  to: 60_000,
  edges: [
    edge('frontend', 'route', 'HTTP GET /route', 60, 10, 'pool', 80),
    edge('frontend', 'route', 'HTTP GET /route2', 6, 1, 'single', 120),
    edge('frontend', 'customer', 'HTTP GET /customer', 60, 1, 'single', 900),
    edge('customer', 'customer', 'self', 60, 1, 'single', 1),
  ],
  duplicates: 0,
  skew: [],
};

describe('the service map from /api/v1/edges', () => {
  const m = decodeEdgesMap(fixture, '');

  it('sums operations into service edges: calls/s, worst p99, busiest structure', () => {
    expect(toMapEdges(m)).toEqual([
      {
        parentService: 'frontend',
        leafService: 'customer',
        callsPerSecond: 1,
        p99Ms: 900,
        structure: 'single',
        width: 1,
      },
      {
        parentService: 'frontend',
        leafService: 'route',
        callsPerSecond: 10.1,
        p99Ms: 120,
        structure: 'pool',
        width: 10,
      },
    ]);
  });

  it('lays them out, callers left of callees', () => {
    const l = layoutServiceMap(toMapEdges(m), 800);
    const x = (s: string) => l.nodes.find((n) => n.service === s)?.x ?? NaN;
    expect(x('frontend')).toBeLessThan(x('route'));
    expect(l.edges.map((e) => e.label)).toEqual([
      '1.0/s · p99 900 ms · single',
      '10.1/s · p99 120 ms · pool ×10',
    ]);
  });

  it('refuses an edge with an unknown structure', () => {
    const bad = { ...fixture, edges: [{ ...fixture.edges[0], structure: 'tree' }] };
    expect(() => decodeEdgesMap(bad, '')).toThrow(/structure/);
  });
});
