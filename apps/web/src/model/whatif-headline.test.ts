import { describe, expect, it } from 'vitest';
import type { WhatIfResult } from '@tailscope/analysis';
import { shownResult, whatIfHeadline } from './whatif-headline';

const result = (applicable: boolean) =>
  ({
    applicable,
    baseline: { p50: 10, p90: 20, p99: 100, p999: 200 },
    whatIf: {
      p50: { value: 10, low: 9, high: 11 },
      p90: { value: 20, low: 19, high: 21 },
      p99: { value: 99, low: 95, high: 104 },
      p999: { value: 199, low: 190, high: 210 },
    },
  }) as unknown as Pick<WhatIfResult, 'applicable' | 'baseline' | 'whatIf'>;

describe('whatIfHeadline', () => {
  it('shows no change beside "Does not apply"', () => {
    expect(whatIfHeadline(result(false))).toEqual({
      baselineMs: 100,
      whatIfMs: 100,
      lowMs: 100,
      highMs: 100,
      changed: false,
    });
  });

  it('shows the replay when the policy applies', () => {
    expect(whatIfHeadline(result(true))).toMatchObject({ whatIfMs: 99, lowMs: 95, changed: true });
  });
});

describe('shownResult', () => {
  const full = (applicable: boolean) => ({ ...result(applicable), extraLoad: 0.05 });

  it('draws the recorded figures and no extra load when the policy does not apply', () => {
    const r = shownResult(full(false));
    expect(r.whatIf.p99).toEqual({ value: 100, low: 100, high: 100 });
    expect(r.whatIf.p50).toEqual({ value: 10, low: 10, high: 10 });
    expect(r.extraLoad).toBe(0);
  });

  it('keeps the replay when it applies', () => {
    const r = full(true);
    expect(shownResult(r)).toBe(r);
  });
});
