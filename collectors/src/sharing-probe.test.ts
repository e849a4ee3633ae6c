import { describe, expect, it } from 'vitest';
import { classifySharing, DEFAULT_SHARING_THRESHOLDS, parseSharingMode } from './sharing-probe';

/** n samples of `base` ms with `k` of them replaced by `value` ms. */
function samples(n: number, base: number, k: number, value: number): number[] {
  const out = new Array<number>(n).fill(base);
  for (let i = 0; i < k; i++) out[(i * 7919) % n] = value;
  return out;
}

describe('classifySharing', () => {
  it('calls an idle core dedicated', () => {
    const v = classifySharing(samples(2000, 0.1, 2, 4));
    expect(v.noticeableCount).toBe(0);
    expect(v.mode).toBe('dedicated');
    expect(v.longCount).toBe(0);
    expect(v.p50Ms).toBeCloseTo(0.1);
  });

  it('calls frequent 5-10 ms oversleeps shared', () => {
    // 2% of sleeps late by 7 ms: above sharedFraction (1%), no long oversleeps.
    const v = classifySharing(samples(2000, 0.1, 40, 7));
    expect(v.mode).toBe('shared');
    expect(v.noticeableFraction).toBeCloseTo(0.02);
  });

  it('calls rare long oversleeps contended, as Bobtail does', () => {
    // 3% of sleeps late by 25 ms.
    const v = classifySharing(samples(2000, 0.1, 60, 25));
    expect(v.mode).toBe('contended');
    expect(v.longCount).toBe(60);
    expect(v.maxMs).toBe(25);
  });

  it('is not contended just below the contended fraction', () => {
    const n = 2000;
    const k = Math.ceil(DEFAULT_SHARING_THRESHOLDS.contendedFraction * n) - 1;
    // Those long oversleeps are also noticeable ones (> 5 ms): below contended, still shared.
    expect(classifySharing(samples(n, 0.1, k, 25)).mode).toBe('shared');
    expect(classifySharing(samples(n, 0.1, k + 1, 25)).mode).toBe('contended');
  });

  it('handles no samples', () => {
    const v = classifySharing([]);
    expect(v).toMatchObject({ mode: 'dedicated', samples: 0, maxMs: 0, longFraction: 0 });
  });

  it('rejects an unknown configured mode by name', () => {
    expect(parseSharingMode('shared')).toBe('shared');
    expect(() => parseSharingMode('noisy')).toThrow(/"noisy"/);
  });
});
