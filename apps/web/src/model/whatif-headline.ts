import type { WhatIfResult } from '@tailscope/analysis';

/**
 * The what-if headline's numbers. A policy that does not apply changes nothing: the page says
 * "the figures below are the recorded ones", so the headline shows the recorded p99 with no
 * change (it showed "-1%" of replay noise beside "Does not apply").
 */
export function whatIfHeadline(r: Pick<WhatIfResult, 'applicable' | 'baseline' | 'whatIf'>): {
  baselineMs: number;
  whatIfMs: number;
  lowMs: number;
  highMs: number;
  /** False when the policy does not apply: show no change. */
  changed: boolean;
} {
  const b = r.baseline.p99;
  if (!r.applicable) return { baselineMs: b, whatIfMs: b, lowMs: b, highMs: b, changed: false };
  const w = r.whatIf.p99;
  return { baselineMs: b, whatIfMs: w.value, lowMs: w.low, highMs: w.high, changed: true };
}
