import { describe, expect, it } from 'vitest';
import { criticalPathByOperation, markSyncAnswers, nameClientWaits } from './critical-path';

const span = (
  spanId: string,
  parentSpanId: string,
  kind: string,
  service: string,
  operation: string,
  startMs: number,
  durationMs: number,
) => ({ spanId, parentSpanId, kind, service, operation, startMs, durationMs });

describe('a client span’s time outside its server span', () => {
  // frontend waits 10 ms on demo-leaf, whose server span runs 6 of them: 4 ms are the network,
  // a queue, or a callee without CPU; none of it is frontend's work.
  const spans = [
    span('root', '', 'Server', 'frontend', 'GET /', 0, 12),
    span('c1', 'root', 'Client', 'frontend', 'HTTP GET', 1, 10),
    span('s1', 'c1', 'SPAN_KIND_SERVER', 'demo-leaf', 'GET /leaf', 3, 6),
    span('c2', 'root', 'Client', 'frontend', 'redis GET', 11, 0.5),
  ];

  it('is named as waiting on the callee, the client span with no server keeps its name', () => {
    const named = nameClientWaits(markSyncAnswers(spans));
    expect(named.map((s) => s.operation)).toEqual([
      'GET /',
      'waiting on demo-leaf: network, queueing or a CPU-starved callee',
      'GET /leaf',
      'redis GET',
    ]);
    const byOp = criticalPathByOperation(named);
    expect(
      byOp.get('frontend\u0000waiting on demo-leaf: network, queueing or a CPU-starved callee'),
    ).toBeCloseTo(4, 9);
    expect(byOp.get('demo-leaf\u0000GET /leaf')).toBeCloseTo(6, 9);
  });
});
