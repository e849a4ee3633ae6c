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
    // 1.5% of sleeps late by 25 ms.
    const v = classifySharing(samples(2000, 0.1, 30, 25));
    expect(v.mode).toBe('contended');
    expect(v.longCount).toBe(30);
    expect(v.maxMs).toBe(25);
  });

  it('stays dedicated just below the contended fraction', () => {
    const n = 2000;
    const k = Math.ceil(DEFAULT_SHARING_THRESHOLDS.contendedFraction * n) - 1;
    expect(classifySharing(samples(n, 0.1, k, 25)).mode).toBe('dedicated');
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
