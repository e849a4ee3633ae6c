import { describe, expect, it } from 'vitest';
import { pickOperation, rankOperations, tailAmplification, verdictKind } from './operations';
import { independentFanout } from '../test-fixtures';

const mild = {
  ...independentFanout,
  leafService: 'cache',
  leafOperation: 'Get',
  requests: 50_000,
  amplification: { ...independentFanout.amplification, observedTailProbability: 0.05 },
};

describe('operations', () => {
  it('measures amplification against the single-call tail probability', () => {
    // width-1 point of the fixture curve: 1 - 0.99 = 0.01.
    expect(tailAmplification(independentFanout)).toBeCloseTo(62, 6);
    expect(tailAmplification({ ...mild, curve: [] })).toBeCloseTo(5, 6);
  });

  it('ranks worst first and picks the named operation, else the worst', () => {
    const ranked = rankOperations([mild, independentFanout]);
    expect(ranked.map((o) => o.leafService)).toEqual(['index', 'cache']);
    expect(pickOperation(ranked, {})?.leafService).toBe('index');
    expect(pickOperation(ranked, { leafService: 'cache', leafOperation: 'Get' })?.leafService).toBe(
      'cache',
    );
    expect(pickOperation(ranked, { leafService: 'nope', leafOperation: 'x' })?.leafService).toBe(
      'index',
    );
    expect(pickOperation([], {})).toBeUndefined();
  });

  it('reads the verdict', () => {
    expect(verdictKind('independent')).toBe('independent');
    expect(verdictKind('correlated: slowness is shared by the calls of a request')).toBe(
      'correlated',
    );
    expect(verdictKind('uncorrelated')).toBe('independent');
    expect(verdictKind('insufficient data')).toBe('unknown');
    expect(verdictKind('queueing')).toBe('queueing');
  });
});
