import { describe, expect, it } from 'vitest';
import { decodeStragglers } from './contracts';

describe('decodeStragglers', () => {
  const body = { tailThresholdMs: 12.5, tailFanouts: 40, rows: [] };

  it('keeps the sampling block: weighted counts are labelled on the page', () => {
    const d = decodeStragglers(
      { ...body, sampling: { weighted: true, spansWithoutSamplingInfo: 0.25 } },
      '$',
    );
    expect(d.sampling).toEqual({ weighted: true, spansWithoutSamplingInfo: 0.25 });
  });

  it('accepts an answer without one (older servers)', () => {
    expect(decodeStragglers(body, '$').sampling).toBeUndefined();
  });
});
