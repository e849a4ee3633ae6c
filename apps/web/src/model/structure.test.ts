import { describe, expect, it } from 'vitest';
import type { Edge, EdgeStructureSummary } from '../api/contracts';
import { independentFanout } from '../test-fixtures';
import {
  edgeRows,
  emptyFanouts,
  queueWaitRows,
  structureLabel,
  structureSummary,
} from './structure';

const q = (p50: number, p99: number) => ({ p50, p95: (p50 + p99) / 2, p99, p999: p99 * 1.5 });

// Shaped as GET /api/v1/edges answers (packages/contracts/src/edges.ts).
const edge = (over: Partial<Edge>): Edge => ({
  parentService: 'frontend',
  parentOperation: 'HTTP GET /dispatch',
  leafService: 'customer',
  leafOperation: 'HTTP GET /customer',
  requests: 100,
  callsPerRequest: { p50: 1, max: 1 },
  structure: 'single',
  concurrency: { p50: 1, max: 1 },
  callLatency: q(3, 9),
  shareOfParent: q(0.1, 0.2),
  ...over,
});

const summary = (e: Edge): EdgeStructureSummary => ({
  parentService: e.parentService,
  parentOperation: e.parentOperation,
  leafService: e.leafService,
  leafOperation: e.leafOperation,
  requests: e.requests,
  structure: e.structure,
});

describe('structure wording', () => {
  it('names a pool by its size and says its calls wait for workers', () => {
    expect(structureLabel('pool', 3)).toBe('pool of 3');
    expect(structureLabel('sequential')).toBe('sequential loop');
    const s = structureSummary({
      ...independentFanout,
      width: { p50: 10, max: 10 },
      structure: 'pool',
      poolSize: 3,
      concurrency: { p50: 3, max: 3 },
      queueWaitMs: q(9.5, 30),
    });
    expect(s?.label).toBe('pool of 3');
    expect(s?.detail).toContain('The 10 calls of a request go through 3 workers');
    expect(s?.detail).toContain('(concurrency p50 3, max 3)');
    expect(s?.detail).toMatch(/waits for a worker 9\.5 ms at the median and 30 ms at p99/);
  });

  it('says parallel calls run at once, and nothing for servers without the analysis', () => {
    const s = structureSummary({
      ...independentFanout,
      structure: 'parallel',
      concurrency: { p50: 4, max: 4 },
    });
    expect(s?.label).toBe('parallel');
    expect(s?.detail).toContain('run at once');
    expect(structureSummary(independentFanout)).toBeNull();
    expect(queueWaitRows(independentFanout)).toEqual([]);
    expect(
      queueWaitRows({ ...independentFanout, queueWaitMs: q(2, 8) }).map((r) => r.label),
    ).toEqual(['50%ile', '95%ile', '99%ile', '99.9%ile']);
  });
});

describe('emptyFanouts', () => {
  it("shows the API's hint and its edges, busiest first", () => {
    const v = emptyFanouts({
      hint: 'only sequential repeated calls were found (1 edge); see /api/v1/edges',
      edges: [
        summary(edge({ requests: 5 })),
        summary(
          edge({
            leafService: 'redis',
            leafOperation: 'GetDriver',
            requests: 50,
            structure: 'sequential',
          }),
        ),
      ],
    });
    expect(v.why).toContain('only sequential repeated calls');
    expect(v.edges.map((e) => [e.to, e.structure])).toEqual([
      ['redis GetDriver', 'sequential loop'],
      ['customer HTTP GET /customer', 'single call'],
    ]);
  });

  it('explains what a fan-out is when the server gives no reason', () => {
    const v = emptyFanouts({});
    expect(v.why).toContain('two or more overlapping calls');
    expect(v.edges).toEqual([]);
  });
});

describe('edgeRows', () => {
  it('puts repeated calls first and formats the contract fields', () => {
    const rows = edgeRows([
      edge({ requests: 900 }),
      edge({
        leafService: 'route',
        leafOperation: 'HTTP GET /route',
        requests: 100,
        callsPerRequest: { p50: 10, max: 10 },
        structure: 'pool',
        poolSize: 3,
        concurrency: { p50: 3, max: 3 },
        callLatency: q(5, 12),
        shareOfParent: q(0.62, 0.8),
      }),
    ]);
    expect(rows.map((r) => r.to)).toEqual(['route HTTP GET /route', 'customer HTTP GET /customer']);
    expect(rows[0]).toMatchObject({
      from: 'frontend HTTP GET /dispatch',
      requests: '100',
      callsPerRequest: '10 / 10',
      structure: 'pool of 3',
      concurrency: '3 / 3',
      callP50: '5 ms',
      callP99: '12 ms',
      shareP50: '62%',
      repeated: true,
    });
    expect(rows[1]?.repeated).toBe(false);
  });
});
