import { describe, expect, it } from 'vitest';
import type { CauseKind, RootCause } from './causes';
import { withMetricEvidence, type HostSignals } from './evidence';

/** Scenario: two candidates whose scores are within the tie margin, as on a busy 2-core machine. */
const cause = (service: string, host: string, kind: CauseKind, score: number): RootCause => ({
  service,
  host,
  score,
  cause: `${service} rose`,
  evidence: {
    kind,
    slowMs: 10,
    typicalMs: 1,
    deltaMs: 9,
    ratio: 10,
    slowRequests: 50,
    typicalRequests: 50,
    foldedMs: 0,
    tiedWith: [],
  },
});
const steal = { signal: 'neighbour-pressure', value: 0.7, baseline: 0.1, ratio: 7 };

describe('withMetricEvidence', () => {
  it('ranks a tied candidate with a fired, fitting signal of its host first', () => {
    const causes = [cause('frontend', 'fe', 'self', 0.48), cause('route', 'route', 'self', 0.42)];
    const hosts: HostSignals[] = [{ service: 'route', host: 'route', signals: [steal] }];
    const out = withMetricEvidence(causes, hosts, 0.1);
    expect(out.map((c) => c.service)).toEqual(['route', 'frontend']);
    expect(out[0]?.evidence.metric).toEqual(steal);
    expect(out[0]?.cause).toMatch(
      /metric evidence on route: neighbour-pressure 0\.700 \(0\.100 before, x7\.0\); ranked before frontend by it$/,
    );
    expect(out[1]).toBe(causes[0]);
  });

  it('does not reorder candidates the tie margin tells apart', () => {
    const causes = [cause('frontend', 'fe', 'self', 0.7), cause('route', 'route', 'self', 0.2)];
    const out = withMetricEvidence(causes, [{ service: 'route', host: 'route', signals: [steal] }]);
    expect(out.map((c) => c.service)).toEqual(['frontend', 'route']);
    expect(out[1]?.evidence.metric?.signal).toBe('neighbour-pressure');
  });

  it('takes only fired signals that fit where the time went', () => {
    const net = cause('route', 'route', 'network', 0.4);
    const self = cause('customer', 'customer', 'self', 0.45);
    const hosts: HostSignals[] = [
      // A resource signal cannot explain time outside the server span ...
      { service: 'route', host: 'route', signals: [steal] },
      // ... and a signal that did not fire (under x1.5) explains nothing.
      {
        service: 'customer',
        host: 'customer',
        signals: [{ signal: 'cpu-saturation', value: 0.9, baseline: 0.8, ratio: 1.1 }],
      },
    ];
    const out = withMetricEvidence([self, net], hosts);
    expect(out).toEqual([self, net]);
    // Network errors do explain the network candidate.
    const errors = { signal: 'network', value: 5, baseline: 0, ratio: Number.MAX_VALUE };
    const withErrors = withMetricEvidence(
      [self, net],
      [{ service: 'route', host: 'route', signals: [errors] }],
    );
    expect(withErrors.map((c) => c.service)).toEqual(['route', 'customer']);
    expect(withErrors[0]?.cause).toMatch(/network 5\.00 \(0\.000 before, new\)/);
  });

  it("explains an uninstrumented call by its caller's host, whatever the callee's name", () => {
    const mysql = cause('mysql', 'customer', 'uninstrumented', 0.5);
    const gc = { signal: 'gc-pause', value: 0.2, baseline: 0.01, ratio: 20 };
    const out = withMetricEvidence(
      [mysql],
      [{ service: 'customer', host: 'customer', signals: [gc] }],
    );
    expect(out[0]?.evidence.metric?.signal).toBe('gc-pause');
  });
});
