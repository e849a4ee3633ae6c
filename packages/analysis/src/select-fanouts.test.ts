import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { buildLeafCalls, type FanoutRecord } from './leaf-calls-builder';
import { selectFanouts } from './select-fanouts';
import type { AttributeColumn, LeafCalls } from './types';

/** Each fan-out as plain values, decoded through the dictionaries (what a reader sees). */
function decode(c: LeafCalls) {
  return c.traceIds.map((traceId, f) => {
    const calls = [];
    for (let i = c.fanoutOffsets[f] ?? 0; i < (c.fanoutOffsets[f + 1] ?? 0); i++) {
      calls.push([
        c.startMs[i],
        c.durationMs[i],
        c.hosts[c.host[i] ?? -1],
        c.modes[c.mode[i] ?? -1],
        c.backgrounds[c.background[i] ?? -1],
        c.attributes?.arm?.values[c.attributes.arm.index[i] ?? -1],
      ]);
    }
    return { traceId, parent: c.parentSpanIds?.[f], start: c.fanoutStartMs[f], calls };
  });
}

const call = fc.record({
  startMs: fc.integer({ min: 0, max: 50 }),
  durationMs: fc.integer({ min: 0, max: 5000 }).map((x) => x / 4),
  host: fc.constantFrom('h1', 'h2', 'h3'),
  mode: fc.constantFrom('dedicated', 'contended'),
  background: fc.constantFrom('none', 'gc'),
  attributes: fc.constantFrom({ arm: 'control' }, { arm: 'treatment' }, {}),
});
const fanouts = fc
  .array(fc.record({ startMs: fc.integer({ min: 0, max: 1e6 }), calls: fc.array(call) }), {
    maxLength: 30,
  })
  .map((fs): FanoutRecord[] =>
    fs.map((f, k) => ({ ...f, traceId: k.toString(16).padStart(32, '0'), parentSpanId: 'p' })),
  );

describe('selectFanouts', () => {
  test.prop([fanouts, fc.integer({ min: 0, max: 3 })])(
    'keeps exactly the chosen fan-outs, each with all its calls and columns',
    (records, mod) => {
      const calls = buildLeafCalls(records, ['arm']);
      const keep = (f: number) => f % 4 !== mod;
      const picked = selectFanouts(calls, keep);
      expect(decode(picked)).toEqual(decode(calls).filter((_, f) => keep(f)));
      expect(picked.fanoutOffsets.length).toBe(picked.fanoutStartMs.length + 1);
      expect(picked.fanoutOffsets.at(-1)).toBe(picked.durationMs.length);
      expect(picked.attributes?.arm?.index.length).toBe(picked.durationMs.length);
    },
  );

  test.prop([fanouts])('splits a run into two groups that together hold every call', (records) => {
    const calls = buildLeafCalls(records, ['arm']);
    const arm = calls.attributes?.arm;
    const control = arm?.values.indexOf('control') ?? -1;
    const isControl = (f: number) => arm?.index[calls.fanoutOffsets[f] ?? 0] === control;
    const a = selectFanouts(calls, isControl);
    const b = selectFanouts(calls, (f) => !isControl(f));
    expect(a.durationMs.length + b.durationMs.length).toBe(calls.durationMs.length);
    expect(a.traceIds.length + b.traceIds.length).toBe(calls.traceIds.length);
  });
});

describe('selectFanouts keeps what keys and weights say', () => {
  const calls = (): LeafCalls => ({
    fanoutOffsets: Uint32Array.from([0, 1, 2]),
    fanoutStartMs: Float64Array.from([0, 10]),
    traceIds: ['a', 'b'],
    startMs: Float64Array.from([0, 10]),
    durationMs: Float64Array.from([1, 2]),
    host: new Uint32Array(2),
    mode: new Uint32Array(2),
    background: new Uint32Array(2),
    hosts: ['h'],
    modes: ['m'],
    backgrounds: ['none'],
    weights: Float64Array.from([2, 2 ** 56]),
    // Parsed from JSON, so `__proto__` is an own key, as an attribute key read from spans is.
    attributes: JSON.parse(
      '{"__proto__":{"values":["x","y"],"index":[0,1]},"constructor":{"values":["z"],"index":[0,0]}}',
    ) as Record<string, AttributeColumn>,
  });

  it('an attribute named __proto__ stays a key; weights follow', () => {
    const out = selectFanouts(calls(), (f) => f === 1);
    expect(out.weights).toEqual(Float64Array.from([2 ** 56]));
    expect(Object.keys(out.attributes ?? {})).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(out.attributes)).toBe(Object.prototype);
    expect([
      ...(
        Object.getOwnPropertyDescriptor(out.attributes, '__proto__')?.value as {
          index: Uint32Array;
        }
      ).index,
    ]).toEqual([1]);
  });
});
