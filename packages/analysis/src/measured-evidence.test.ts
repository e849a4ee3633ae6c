import { describe, expect, it } from 'vitest';
import { evidenceSeries, type EvidenceRowOf } from './evidence-series';
import {
  MAX_MEASURED_POINTS,
  MEASURED_RULES,
  measuredGcEvidence,
  measuredModeEvidence,
} from './measured-evidence';
import { measuredSharingModes } from './measured-modes';

const rows = (host: string, signal: string, metric: string, values: (number | null)[], at = 0) =>
  values.flatMap((value, i): EvidenceRowOf[] =>
    value === null ? [] : [{ host, signal, metric, window: at + i, value }],
  );

describe('measuredModeEvidence', () => {
  const s = evidenceSeries([
    ...rows('a', 'neighbour-pressure', 'system.cpu.time', [0.3, 0.3, 0.3, 0.1]),
    ...rows('a', 'throttling', 'container.cpu.throttling_data.throttled_time', [0, 0.5, 0, 0]),
    ...rows('b', 'neighbour-pressure', 'system.cpu.time', [0, 0, null, 0]),
    ...rows('c', 'neighbour-pressure', 'system.cpu.time', [0.04, 0.04]),
    ...rows('d', 'gc-pause', 'v8js.gc.duration', [0.9]),
  ]);
  const modes = measuredSharingModes(s);

  it('gives the rule its reading, against the hosts judged otherwise, and the series', () => {
    expect(Object.fromEntries(modes)).toEqual({ a: 'contended', b: 'dedicated', c: 'shared' });
    const [a] = measuredModeEvidence(s, 'contended', ['a'], modes);
    expect(a).toMatchObject({
      host: 'a',
      // Steal is a's worst in 3 windows of 4, throttling in 1.
      signal: 'neighbour-pressure',
      metric: 'system.cpu.time',
      level: 0.1,
      windowsAbove: 4,
      windows: 4,
      series: { fromWindow: 0, step: 1, values: [0.3, 0.5, 0.3, 0.1] },
    });
    expect(a?.value).toBeCloseTo(0.3, 12);
    // b's mean 0 and c's 0.04, each host weighing the same.
    expect(a?.baseline).toBeCloseTo(0.02, 12);
    expect(MEASURED_RULES.contended).toMatch(/10% of the windows .* 0.1 s\/s/);
  });

  it('leaves out hosts without evidence, and a gap stays a gap', () => {
    const out = measuredModeEvidence(s, 'dedicated', ['b', 'nobody'], modes);
    expect(out.map((e) => e.host)).toEqual(['b']);
    expect(out[0]?.series.values).toEqual([0, 0, null, 0]);
    expect(out[0]?.windows).toBe(3);
    expect(measuredModeEvidence(s, 'unknown', ['a'], modes)).toEqual([]);
  });

  it('averages a long series over runs of windows', () => {
    const n = MAX_MEASURED_POINTS * 2 + 1;
    const long = evidenceSeries(
      rows(
        'a',
        'throttling',
        'm',
        Array.from({ length: n }, (_, i) => i),
        100,
      ),
    );
    const [e] = measuredModeEvidence(long, 'contended', ['a'], measuredSharingModes(long));
    expect(e?.series.step).toBe(3);
    expect(e?.series.fromWindow).toBe(100);
    expect(e?.series.values).toHaveLength(Math.ceil(n / 3));
    expect(e?.series.values[0]).toBe(1);
    expect(e?.series.values.at(-1)).toBe(n - 2); // windows n-3..n-1
    expect(Number.isNaN(e?.baseline)).toBe(true);
  });
});

describe('measuredGcEvidence', () => {
  it('reads gc windows against the host’s other windows', () => {
    const s = evidenceSeries([
      ...rows('a', 'gc-pause', 'v8js.gc.duration', [0.01, 0.2, 0.4, 0.03]),
      ...rows('b', 'gc-pause', 'v8js.gc.duration', [0.01]),
    ]);
    const out = measuredGcEvidence(s, ['a', 'b']);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ host: 'a', windowsAbove: 2, windows: 4, level: 0.05 });
    expect(out[0]?.value).toBeCloseTo(0.3, 12);
    expect(out[0]?.baseline).toBeCloseTo(0.02, 12);
  });
});
