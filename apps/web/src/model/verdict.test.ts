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

  it('says waiting for a worker, not slow calls, makes a pool slow: more workers, not hedging', () => {
    const v = verdictFor({
      ...independentFanout,
      structure: 'pool',
      poolSize: 3,
      concurrency: { p50: 3, max: 3 },
      queueWaitMs: { p50: 9.5, p95: 21, p99: 30, p999: 41 },
      amplification: { ...independentFanout.amplification, verdict: 'queueing' },
    });
    expect(v.kind).toBe('queueing');
    expect(v.headline).toBe('Queueing for workers');
    expect(v.detail).toContain('Waiting for a worker, not slow calls, makes requests slow');
    expect(v.detail).toContain('go through 3 workers');
    expect(v.detail).toContain('Add parallelism (more workers); hedging will not help.');
    expect(v.detail).not.toContain('should cut the tail');
  });
});
