import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { ABSENT_ATTRIBUTE } from './conventions';
import { dimensionColumn } from './dimensions';
import { buildLeafCalls, type FanoutRecord } from './leaf-calls-builder';
import { packLeafCalls, unpackLeafCalls } from './leaf-pack';
import { firstAnswerAllLeavesMs } from './whatif/fanout/first-answer';

/**
 * Issue 25: names clients send (attribute keys and values, hosts, trace ids) looked up in plain
 * objects found Object.prototype's members. Every name here is a name like any other.
 */
const PROTOTYPE_NAMES = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  'propertyIsEnumerable',
  '__defineGetter__',
  '__lookupGetter__',
  'toLocaleString',
];
const name = fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.string({ minLength: 1 }));

/** Fan-outs of two calls each whose attributes use `keys` (the last key is never set). */
function fanouts(keys: string[], values: string[]): FanoutRecord[] {
  return values.map((v, f) => ({
    traceId: PROTOTYPE_NAMES[f % PROTOTYPE_NAMES.length] ?? 't',
    parentSpanId: 'p',
    startMs: f,
    calls: [0, 1].map((c) => ({
      startMs: c,
      durationMs: 1 + f + c,
      host: v,
      mode: v,
      background: v,
      attributes: Object.fromEntries(keys.slice(0, -1).map((k) => [k, `${v}${c}`])),
    })),
  }));
}

describe('names like Object.prototype members', () => {
  test.prop([
    fc.uniqueArray(name, { minLength: 2, maxLength: 5 }),
    fc.array(name, { minLength: 1, maxLength: 6 }),
  ])(
    'are attribute keys and values like any other, through build, pack and dimensions',
    (keys, values) => {
      const calls = buildLeafCalls(fanouts(keys, values), keys);
      const { calls: back } = unpackLeafCalls(packLeafCalls(calls));
      for (const c of [calls, back]) {
        expect(Object.keys(c.attributes ?? {}).sort()).toEqual([...keys].sort());
        keys.forEach((k, i) => {
          const col = dimensionColumn(c, `attr:${k}`);
          expect(col.index).toHaveLength(2 * values.length);
          const read = Array.from(col.index, (v) => col.values[v]);
          const set = i < keys.length - 1;
          expect(read).toEqual(values.flatMap((v) => (set ? [`${v}0`, `${v}1`] : ['', ''])));
        });
        // A key that was not loaded reads as absent for every call.
        for (const missing of PROTOTYPE_NAMES.filter((n) => !keys.includes(n))) {
          const col = dimensionColumn(c, `attr:${missing}`);
          expect(col.values).toEqual([ABSENT_ATTRIBUTE]);
          expect(col.index).toHaveLength(2 * values.length);
          expect(() => firstAnswerAllLeavesMs(c, missing)).toThrow(/no attribute/);
        }
      }
    },
  );
});
