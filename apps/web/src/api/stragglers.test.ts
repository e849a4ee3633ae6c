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

  it('keeps the evidence of a measured value, a missing baseline as NaN', () => {
    const row = {
      dimension: 'sharing_mode',
      value: 'contended',
      calls: 10,
      stragglers: 3,
      trafficShare: 0.25,
      stragglerShare: 0.75,
      riskRatio: 9,
      riskRatioLow: 2,
      riskRatioHigh: 30,
      pValue: 0.001,
      qValue: 0.002,
      cause: true,
      p99DropMs: 40,
      explainedBy: null,
      measured: {
        rule: 'a rule',
        hosts: 1,
        evidence: [
          {
            host: 'h1',
            signal: 'neighbour-pressure',
            metric: 'system.cpu.time',
            value: 0.3,
            baseline: null,
            level: 0.1,
            windowsAbove: 9,
            windows: 10,
            series: { fromMs: 0, windowMs: 60_000, values: [0.3, null] },
          },
        ],
      },
    };
    const d = decodeStragglers({ ...body, rows: [row] }, '$');
    const e = d.rows[0]?.measured?.evidence[0];
    expect(e?.baseline).toBeNaN();
    expect(e?.series.values).toEqual([0.3, null]);
    expect(d.rows[0]?.measured?.hosts).toBe(1);
    expect(
      decodeStragglers({ ...body, rows: [{ ...row, measured: undefined }] }, '$').rows[0],
    ).not.toHaveProperty('measured');
  });

  it("keeps a host cause's evidence (null baseline and ratio as NaN) and a note", () => {
    const row = {
      dimension: 'host',
      value: 'h3',
      calls: 10,
      stragglers: 6,
      trafficShare: 0.1,
      stragglerShare: 0.6,
      riskRatio: 12,
      riskRatioLow: 4,
      riskRatioHigh: 40,
      pValue: 0.0001,
      qValue: 0.0002,
      cause: true,
      p99DropMs: 80,
      evidence: [
        {
          signal: 'network',
          host: 'h3',
          metric: 'system.network.errors',
          value: 2,
          baseline: null,
          ratio: null,
          peers: 0,
          windows: 1,
          series: { fromMs: 60_000, windowMs: 60_000, values: [2] },
        },
      ],
    };
    const noted = { ...row, value: 'h4', evidence: undefined, evidenceNote: 'no metrics' };
    const d = decodeStragglers({ ...body, rows: [row, noted] }, '$');
    const e = d.rows[0]?.evidence?.[0];
    expect(e?.baseline).toBeNaN();
    expect(e?.ratio).toBeNaN();
    expect(e?.series.values).toEqual([2]);
    expect(d.rows[1]?.evidenceNote).toBe('no metrics');
    expect(d.rows[1]).not.toHaveProperty('evidence');
  });
});
