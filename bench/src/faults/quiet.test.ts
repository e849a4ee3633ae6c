import { describe, expect, it } from 'vitest';
import { isQuiet, loadBaseline, parseLoadReports, type LoadReport } from './quiet';

const report = (t: number, p50Ms: number | null, inFlight = 2): LoadReport => ({
  t,
  inFlight,
  p50Ms,
  n: p50Ms === null ? 0 : 4,
});

describe('quiet before a fault', () => {
  it("reads the load's 2 s reports and skips every other line", () => {
    const text = [
      'sent 1',
      '{"ready":1000}',
      '{"t":2000,"sent":4,"ok":3,"failed":0,"skipped":0,"inFlight":1,"p50Ms":700,"n":3}',
      '{"t":4000,"sent":8,"ok":7,"failed":0,"skipped":0,"inFlight":1,"p50Ms":null,"n":0}',
      '"t":6000,"sent":1', // cut at the kept output's start
      '{"t":8000,"sent":9,"ok":9,"failed":0,"skipped":0,"end":true}',
    ].join('\n');
    expect(parseLoadReports(text)).toEqual([
      { t: 2000, inFlight: 1, p50Ms: 700, n: 3 },
      { t: 4000, inFlight: 1, p50Ms: null, n: 0 },
    ]);
  });

  it('takes the medians of the first stretch as the baseline', () => {
    const rs = [report(0, 700), report(2000, 800, 3), report(4000, 750), report(6000, 5000, 40)];
    expect(loadBaseline(rs, 0, 6000)).toEqual({ p50Ms: 750, inFlight: 2 });
    expect(loadBaseline(rs, 0, 4000)).toBeNull();
  });

  it('is quiet only when the last reports are like the baseline', () => {
    const base = { p50Ms: 750, inFlight: 2 };
    const calm = [10, 12, 14, 16, 18].map((s) => report(s * 1000, 760));
    expect(isQuiet(calm, base, 18_000)).toBe(true);
    // A backlog draining: latency still x2, then requests piled up in flight.
    expect(isQuiet([...calm.slice(0, 4), report(18_000, 1600)], base, 18_000)).toBe(false);
    expect(isQuiet([...calm.slice(0, 4), report(18_000, 760, 9)], base, 18_000)).toBe(false);
    // Nothing answered in a report: not quiet (the service may be stuck).
    expect(isQuiet([...calm.slice(0, 4), report(18_000, null)], base, 18_000)).toBe(false);
    // Too few reports (the load stalled): not quiet.
    expect(isQuiet(calm.slice(0, 2), base, 18_000)).toBe(false);
  });
});
