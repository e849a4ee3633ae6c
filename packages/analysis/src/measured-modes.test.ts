import { describe, expect, it } from 'vitest';
import { gcBackgroundWindows, measuredSharingModes, withMeasuredModes } from './measured-modes';
import type { LeafCalls } from './types';
import { evidenceSeries } from './evidence-series';

const rows = (host: string, signal: string, values: number[]) =>
  values.map((value, window) => ({ host, signal, metric: signal, window, value }));

describe('measuredSharingModes', () => {
  it('reads contended, shared and dedicated from steal and throttling', () => {
    const m = measuredSharingModes(
      evidenceSeries([
        ...rows('a', 'neighbour-pressure', [0, 0.01, 0.3, 0.25, 0, 0, 0, 0, 0, 0]),
        ...rows('b', 'throttling', [0.03, 0.04, 0.05, 0.03]),
        ...rows('c', 'neighbour-pressure', [0, 0.001, 0]),
        ...rows('d', 'cpu-saturation', [0.99, 0.99]),
      ]),
    );
    expect(Object.fromEntries(m)).toEqual({ a: 'contended', b: 'shared', c: 'dedicated' });
  });

  it('takes the worse of steal and throttling in one window', () => {
    const m = measuredSharingModes(
      evidenceSeries([
        ...rows('a', 'neighbour-pressure', [0, 0]),
        ...rows('a', 'throttling', [0.5, 0]),
      ]),
    );
    expect(m.get('a')).toBe('contended');
  });
});

describe('gcBackgroundWindows', () => {
  it('marks windows of heavy GC as gc background, relative to the base', () => {
    const w = gcBackgroundWindows(
      evidenceSeries(rows('a', 'gc-pause', [0.01, 0.2])),
      (w) => w * 10 - 5,
    );
    expect(w).toEqual([{ host: 'a', start: 5, end: 15, kind: 'gc' }]);
  });
});

describe('withMeasuredModes', () => {
  const calls = {
    host: Uint32Array.from([0, 1, 2, 0]),
    mode: Uint32Array.from([0, 0, 1, 1]),
    hosts: ['a', 'b', 'c'],
    modes: ['unknown', 'dedicated'],
  } as unknown as LeafCalls;

  it('fills unknown modes from the measurement and keeps the spans own mode', () => {
    const out = withMeasuredModes(
      calls,
      new Map([
        ['a', 'contended'],
        ['c', 'shared'],
      ]),
    );
    expect([...out.mode].map((i) => out.modes[i])).toEqual([
      'contended',
      'unknown',
      'dedicated',
      'dedicated',
    ]);
    expect([...calls.mode]).toEqual([0, 0, 1, 1]);
  });

  it('returns the same calls when nothing is measured', () => {
    expect(withMeasuredModes(calls, new Map([['z', 'shared']]))).toBe(calls);
  });
});
