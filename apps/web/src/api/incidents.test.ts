import { describe, expect, it } from 'vitest';
import { decodeIncidents, describeIncident, describePathDiff, describeTopCause } from './incidents';

const at = (hh: number, mm: number, ss = 0): number => Date.UTC(2024, 2, 1, hh, mm, ss);

const answer = decodeIncidents(
  {
    incidents: [
      {
        id: 'inc-1',
        fromMs: at(5, 4),
        toMs: at(5, 6),
        requests: 480,
        rootCauses: [
          {
            service: 'customer',
            host: 'customer-00',
            operation: 'HTTP GET /customer',
            score: 0.989,
            cause: 'customer on customer-00 (HTTP GET /customer): its own time rose',
            evidence: { kind: 'self', ratio: 26.6, tiedWith: [], slowMs: 98 },
          },
        ],
        affected: [
          { service: 'mysql', operation: 'SQL SELECT', ratio: 49.9 },
          { service: 'customer', operation: 'HTTP GET /customer', ratio: 48.3 },
          { service: 'frontend', operation: 'HTTP GET /dispatch', ratio: 3.1, kind: 'root' },
        ],
        exemplars: {
          slow: [{ traceId: 'a1', durationMs: 2400 }],
          typical: [{ traceId: 'b2', durationMs: 310 }],
        },
        criticalPathDiff: [
          { service: 'route', slowMs: 150, typicalMs: 52, deltaMs: 98, networkDeltaMs: 96 },
          { service: 'customer', slowMs: 48.5, typicalMs: 38.5, deltaMs: 10, networkDeltaMs: 0 },
          { service: 'pricing', slowMs: 20.2, typicalMs: 20, deltaMs: 0.2, networkDeltaMs: 0 },
          { service: 'driver', slowMs: 20, typicalMs: 21, deltaMs: -1, networkDeltaMs: 0 },
        ],
      },
      {
        id: 'inc-2',
        fromMs: at(6, 0, 10),
        toMs: at(6, 0, 30),
        requests: 1,
        rootCauses: [],
        affected: [{ service: 'api', operation: '*', ratio: 3.21 }],
      },
    ],
    tieMargin: 0.1,
  },
  '',
);

const [first, second] = answer.incidents;
if (!first || !second) throw new Error('the fixture holds two incidents');

describe('incidents in words', () => {
  it('words the services, the slowdown, the time and the requests', () => {
    expect(describeIncident(first)).toBe(
      'mysql, customer slowed (up to 50x) from 05:04 to 05:06 UTC, 480 requests',
    );
    expect(describeIncident(second)).toBe(
      'api slowed (up to 3.2x) from 06:00:10 to 06:00:30 UTC, 1 request',
    );
    // Requests slower with no call slower: the root operation is named.
    const rootOnly = {
      ...second,
      affected: [
        {
          service: 'frontend',
          operation: 'HTTP GET /dispatch',
          ratio: 2.04,
          kind: 'root' as const,
        },
      ],
    };
    expect(describeIncident(rootOnly)).toBe(
      'requests to frontend HTTP GET /dispatch slowed (up to 2.0x) from 06:00:10 to 06:00:30 UTC, 1 request',
    );
  });

  it('leads with the top root cause and its share of the extra time, or says why none', () => {
    expect(describeTopCause(first)).toBe(
      'Most likely: customer on customer-00 (HTTP GET /customer): its own time rose (99% of the extra time).',
    );
    expect(describeTopCause(second)).toMatch(/^No root cause ranked/);
  });

  it('rejects an answer that breaks the contract', () => {
    expect(() => decodeIncidents({ incidents: [{ id: 'x' }] }, '')).toThrow(/fromMs/);
  });

  it('words whose time grew on the critical path, not noise; absent fields decode as empty', () => {
    expect(describePathDiff(first)).toEqual([
      "route +98 ms on the critical path (52 -> 150 ms per request, 96 ms of it outside route's server spans)",
      'customer +10 ms on the critical path (39 -> 49 ms per request)',
    ]);
    expect(first.exemplars.slow[0]?.traceId).toBe('a1');
    expect(second.exemplars).toEqual({ slow: [], typical: [] });
    expect(describePathDiff(second)).toEqual([]);
  });
});
