import { describe, expect, it } from 'vitest';
import { decodeEpisodes, describeEpisode } from './episodes';
import { episodeLinks } from '../pages/overview/WorstEpisodes';
import { formatSignal } from '../components/EpisodeEvidence';

const at = (hh: number, mm: number): number => Date.UTC(2024, 2, 1, hh, mm);

describe('episodes in words', () => {
  const callee = decodeEpisodes(
    {
      windowSeconds: 10,
      episodes: [
        {
          service: 'currencyservice',
          host: 'node-3',
          kind: 'callee',
          fromMs: at(5, 19),
          toMs: at(5, 21),
          p99Ms: 400,
          baselineP99Ms: 10,
          ratio: 40,
          calls: 1200,
          qValue: 1e-9,
        },
        {
          service: 'mysql',
          host: '*',
          kind: 'edge',
          parentService: 'customer',
          parentOperation: 'HTTP GET /customer',
          operation: 'SQL SELECT',
          fromMs: at(7, 0),
          toMs: at(7, 3),
          p99Ms: 900,
          baselineP99Ms: 300,
          ratio: 3,
          calls: 90,
          qValue: 0.01,
        },
      ],
      sampling: { weighted: false, spansWithoutSamplingInfo: 1 },
    },
    '',
  );

  it('says which service, how much slower and when', () => {
    const [a, b] = callee.episodes;
    expect(a && describeEpisode(a)).toBe(
      'calls into currencyservice on node-3 were 40x slower from 05:19 to 05:21 UTC',
    );
    expect(b && describeEpisode(b)).toBe(
      'calls from customer into mysql SQL SELECT were 3.0x slower from 07:00 to 07:03 UTC',
    );
  });

  it('names seconds when the episode does not start or end on a whole minute', () => {
    const a = callee.episodes[0];
    if (!a) throw new Error('fixture');
    expect(describeEpisode({ ...a, fromMs: at(5, 19) + 10_000 })).toContain(
      'from 05:19:10 to 05:21:00 UTC',
    );
  });

  it('links the hosts heatmap and the traces over the episode with a window of margin', () => {
    const b = callee.episodes[1];
    if (!b) throw new Error('fixture');
    const l = episodeLinks(b, 10_000);
    const s = new URLSearchParams(l.stragglers.split('?')[1]);
    expect(s.get('leafService')).toBe('mysql');
    expect(s.get('parentService')).toBe('customer');
    expect(s.get('leafOperation')).toBe('SQL SELECT');
    expect(Number(s.get('from'))).toBe(at(7, 0) - 10_000);
    expect(Number(s.get('to'))).toBe(at(7, 3) + 10_000);
    expect(l.traces).toContain('/traces?');
  });

  it('refuses an episode without its times', () => {
    expect(() => decodeEpisodes({ windowSeconds: 10, episodes: [{ service: 'x' }] }, '')).toThrow(
      /episodes\.0\.host|episodes\[0\]/,
    );
  });

  it('keeps the cause, the span split and the evidence series (null windows too)', () => {
    const d = decodeEpisodes(
      {
        windowSeconds: 60,
        episodes: [
          {
            service: 'currencyservice',
            host: 'pod-1',
            fromMs: at(5, 19),
            toMs: at(5, 21),
            p99Ms: 400,
            baselineP99Ms: 10,
            ratio: 40,
            calls: 10,
            qValue: 0.001,
            cause: 'calls into currencyservice ...: CPU saturation',
            causeSignal: 'cpu-saturation',
            spanEvidence: {
              calls: 10,
              baselineCalls: 30,
              clientMs: 401,
              baselineClientMs: 11,
              serverMs: 400,
              baselineServerMs: 10,
              outsideMs: 1,
              baselineOutsideMs: 1,
            },
            evidence: [
              {
                signal: 'cpu-saturation',
                host: 'pod-1',
                value: 0.98,
                baseline: 0.12,
                ratio: 8.2,
                series: { fromMs: at(5, 16), windowMs: 60_000, values: [0.12, null, 0.98] },
              },
            ],
          },
        ],
      },
      '',
    );
    const e = d.episodes[0];
    expect(e?.causeSignal).toBe('cpu-saturation');
    expect(e?.spanEvidence?.serverMs).toBe(400);
    expect(e?.evidence?.[0]?.series?.values).toEqual([0.12, null, 0.98]);
    expect(formatSignal('cpu-saturation', 0.98)).toBe('98%');
    expect(formatSignal('network', 2.5)).toBe('2.50/s');
  });
});
