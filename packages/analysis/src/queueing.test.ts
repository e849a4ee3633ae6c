import { describe, expect, it } from 'vitest';
import { buildLeafCalls } from './leaf-calls-builder';
import { fanoutVerdict, queuedStragglers, queuedTail } from './queueing';

const call = (startMs: number, durationMs: number) => ({
  startMs,
  durationMs,
  host: 'h',
  mode: 'unknown',
  background: 'none',
});

describe('the queueing verdict', () => {
  // Fan-out 1: a pool of 2, the straggler waited 100 ms and ran 50. Fan-out 2: parallel, the
  // straggler is slow itself. Fan-out 3: the latest finish is a call that waited 20 and ran 90.
  const calls = buildLeafCalls([
    {
      traceId: 'a',
      parentSpanId: 'p',
      startMs: 0,
      calls: [call(0, 50), call(0, 50), call(50, 50), call(100, 50)],
    },
    { traceId: 'b', parentSpanId: 'p', startMs: 1, calls: [call(0, 10), call(0, 200)] },
    { traceId: 'c', parentSpanId: 'p', startMs: 2, calls: [call(0, 50), call(20, 90)] },
  ]);

  it('finds stragglers that waited longer than they ran', () => {
    expect(queuedStragglers(calls)).toEqual([true, false, false]);
  });

  it('is queueing for a pool when most tail fan-outs have a queued straggler', () => {
    const queued = queuedStragglers(calls);
    const allLeaves = [150, 200, 110];
    expect(queuedTail(queued, allLeaves, 140)).toEqual({ tail: 2, queued: 1 });
    expect(fanoutVerdict('independent', 'pool', { tail: 2, queued: 1 })).toBe('independent');
    expect(fanoutVerdict('independent', 'pool', { tail: 3, queued: 2 })).toBe('queueing');
    // Only pools queue: a parallel fan-out keeps its amplification verdict.
    expect(fanoutVerdict('correlated', 'parallel', { tail: 3, queued: 3 })).toBe('correlated');
    expect(fanoutVerdict('insufficient-data', 'pool', { tail: 0, queued: 0 })).toBe(
      'insufficient-data',
    );
  });
});
