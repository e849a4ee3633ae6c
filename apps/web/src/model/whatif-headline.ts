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

/**
 * The figures the results panels draw. A policy that does not apply sends no backup and moves no
 * call, so beside "the figures below are the recorded ones" every panel shows the recorded
 * percentiles (intervals collapsed onto them) and no extra load: the percentile bars showed a
 * replay's "-1%" and the cost card 5% extra calls under that sentence. O(1).
 */
export function shownResult<
  R extends Pick<WhatIfResult, 'applicable' | 'baseline' | 'whatIf' | 'extraLoad'>,
>(r: R): R {
  if (r.applicable) return r;
  const at = (v: number) => ({ value: v, low: v, high: v });
  const b = r.baseline;
  return {
    ...r,
    whatIf: { p50: at(b.p50), p90: at(b.p90), p99: at(b.p99), p999: at(b.p999) },
    extraLoad: 0,
  };
}
