import { describe, expect, it } from 'vitest';
import { baselineThresholds, judgeProbes, type ProbeReading } from './probe-judge';

// Readings from docs/collectors.md's measurements (share of 1 ms sleeps late by > 10 ms / > 5 ms).
const reading = (
  process: string,
  onHogCore: boolean,
  long: number,
  noticeable: number,
): ProbeReading => ({ process, onHogCore, longFraction: long, noticeableFraction: noticeable });

describe('judgeProbes', () => {
  const calm = { longFraction: 0.0003, noticeableFraction: 0.0017 };

  it('names the leaf on the hogs core contended and the rest dedicated on a calm machine', () => {
    const ruling = judgeProbes(
      [
        reading('leaf-1-contended', true, 0.077, 0.139),
        reading('leaf-2-gc', false, 0.005, 0.025),
        reading('leaf-4-plain', false, 0.0045, 0.03),
        reading('leaf-5-shared', true, 0.0105, 0.033),
      ],
      calm,
      true,
    );
    expect(ruling.kind).toBe('modes');
    if (ruling.kind !== 'modes') return;
    expect(Object.fromEntries(ruling.modes)).toEqual({
      'leaf-1-contended': 'contended',
      'leaf-2-gc': 'shared',
      'leaf-4-plain': 'shared',
      'leaf-5-shared': 'shared',
    });
  });

  it('says the machine is saturated when a leaf away from the hogs reads contended', () => {
    const ruling = judgeProbes(
      [reading('leaf-1-contended', true, 0.08, 0.2), reading('leaf-4-plain', false, 0.05, 0.1)],
      calm,
      true,
    );
    expect(ruling).toEqual({ kind: 'saturated', offenders: ['leaf-4-plain'] });
  });

  it('unpinned: saturated only when every leaf reads contended', () => {
    const all = [reading('a', false, 0.05, 0.1), reading('b', false, 0.06, 0.1)];
    expect(judgeProbes(all, calm, false).kind).toBe('saturated');
    const one = [reading('a', false, 0.05, 0.1), reading('b', false, 0.001, 0.001)];
    expect(judgeProbes(one, calm, false).kind).toBe('modes');
  });

  it('raises the thresholds by the calm baseline of a busy machine', () => {
    // A busy machine at rest already shows 0.33% long and 1.4% noticeable oversleeps.
    const busy = { longFraction: 0.0033, noticeableFraction: 0.014 };
    const t = baselineThresholds(busy);
    expect(t.contendedFraction).toBeCloseTo(0.02 + 0.0066, 12);
    expect(t.sharedFraction).toBeCloseTo(0.01 + 0.028, 12);
    const ruling = judgeProbes([reading('leaf-4-plain', false, 0.006, 0.03)], busy, true);
    expect(ruling.kind === 'modes' && ruling.modes.get('leaf-4-plain')).toBe('dedicated');
  });
});
