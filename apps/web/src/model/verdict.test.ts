import { describe, expect, it } from 'vitest';
import { verdictFor } from './verdict';
import { independentFanout } from '../test-fixtures';

describe('verdictFor', () => {
  it('explains independent slowness with the observed and predicted numbers', () => {
    const v = verdictFor(independentFanout);
    expect(v.kind).toBe('independent');
    expect(v.detail).toContain('62% of requests take longer than 980 ms');
    expect(v.detail).toContain('63.4% would');
  });

  it('warns that hedging helps less when slowness is correlated', () => {
    const v = verdictFor({
      ...independentFanout,
      amplification: {
        ...independentFanout.amplification,
        observedTailProbability: 0.011,
        verdict: 'correlated',
      },
    });
    expect(v.headline).toBe('Correlated slowness');
    expect(v.detail).toContain('hedging will help less');
    expect(v.detail).toContain('1.1% of requests');
  });
});
