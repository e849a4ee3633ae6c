import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import protobuf from 'protobufjs/minimal';
import { ByteSink } from './byte-sink';
import { MAX_VALUE_DEPTH, writeAnyValue } from './any-value';
import { DecodeError, ProtoReader } from './proto-reader';

type Writer = protobuf.Writer;
type Value =
  | { s: string }
  | { b: boolean }
  | { i: bigint }
  | { d: number }
  | { y: Uint8Array }
  | { a: Value[] }
  | { m: [string, Value][] }
  | { none: true };

/** AnyValue bytes, written field by field as an SDK would. */
function encode(w: Writer, v: Value): void {
  if ('s' in v) w.uint32((1 << 3) | 2).string(v.s);
  else if ('b' in v) w.uint32(2 << 3).bool(v.b);
  else if ('i' in v) {
    const u = BigInt.asUintN(64, v.i);
    const bits = { low: Number(u & 0xffffffffn), high: Number(u >> 32n) };
    w.uint32(3 << 3).int64(bits as unknown as number);
  } else if ('d' in v) w.uint32((4 << 3) | 1).double(v.d);
  else if ('y' in v) w.uint32((7 << 3) | 2).bytes(v.y);
  else if ('a' in v) {
    w.uint32((5 << 3) | 2).fork();
    for (const item of v.a) {
      w.uint32((1 << 3) | 2).fork();
      encode(w, item);
      w.ldelim();
    }
    w.ldelim();
  } else if ('m' in v) {
    w.uint32((6 << 3) | 2).fork();
    for (const [key, item] of v.m) {
      w.uint32((1 << 3) | 2).fork();
      w.uint32((1 << 3) | 2).string(key);
      w.uint32((2 << 3) | 2).fork();
      encode(w, item);
      w.ldelim();
      w.ldelim();
    }
    w.ldelim();
  }
}

/** [the exporter's string, the natural JSON or null] for one AnyValue. */
function convert(v: Value): [string, string | null] {
  const w = protobuf.Writer.create();
  encode(w, v);
  const bytes = Buffer.from(w.finish());
  const sink = new ByteSink(16);
  const typedSink = new ByteSink(16);
  const hasTyped = writeAnyValue(new ProtoReader(bytes), 0, bytes.length, sink, typedSink);
  return [nativeString(sink), hasTyped ? nativeString(typedSink) : null];
}

/** The one Native String a sink holds (varint length, then UTF-8). */
function nativeString(sink: ByteSink): string {
  const r = new ProtoReader(Buffer.from(sink.bytes()));
  const end = r.lenEnd(sink.len);
  expect(end).toBe(sink.len);
  return r.b.toString('utf8', r.p, end);
}

describe('AnyValue -> exporter string and typed JSON', () => {
  it('keeps strings as they are, with no typed copy', () => {
    expect(convert({ s: 'héllo' })).toEqual(['héllo', null]);
    expect(convert({ s: '' })).toEqual(['', null]);
  });

  it('writes ints in decimal, as numbers when exact and as strings past 2^53', () => {
    expect(convert({ i: 42n })).toEqual(['42', '42']);
    expect(convert({ i: -5n })).toEqual(['-5', '-5']);
    expect(convert({ i: 2n ** 60n })).toEqual(['1152921504606846976', '"1152921504606846976"']);
    expect(convert({ i: -(2n ** 63n) })).toEqual([
      '-9223372036854775808',
      '"-9223372036854775808"',
    ]);
  });

  it('writes doubles in their shortest form and booleans as words', () => {
    expect(convert({ d: 3.5 })).toEqual(['3.5', '3.5']);
    expect(convert({ d: 0.1 + 0.2 })).toEqual(['0.30000000000000004', '0.30000000000000004']);
    expect(convert({ d: 1e21 })).toEqual(['1e+21', '1e+21']);
    expect(convert({ d: NaN })).toEqual(['NaN', '"NaN"']);
    expect(convert({ b: true })).toEqual(['true', 'true']);
    expect(convert({ b: false })).toEqual(['false', 'false']);
  });

  it('writes bytes as base64 (which is also their JSON form)', () => {
    expect(convert({ y: Uint8Array.from([1, 2, 3, 250]) })).toEqual(['AQID+g==', null]);
  });

  it("writes arrays and kvlists as Go's json.Marshal does: sorted keys, HTML-safe escapes", () => {
    const arr: Value = { a: [{ i: 1n }, { s: 'a<b&c' }, { b: true }, { d: 2.5 }, { none: true }] };
    expect(convert(arr)).toEqual([
      '[1,"a\\u003cb\\u0026c",true,2.5,null]',
      '[1,"a<b&c",true,2.5,null]',
    ]);
    const map: Value = {
      m: [
        ['b', { i: 1n }],
        ['a', { a: [{ s: 'x' }] }],
      ],
    };
    expect(convert(map)).toEqual(['{"a":["x"],"b":1}', '{"b":1,"a":["x"]}']);
  });

  it('stores an empty value as an empty string, typed null', () => {
    expect(convert({ none: true })).toEqual(['', 'null']);
  });

  it('refuses values nested deeper than the limit instead of recursing', () => {
    let v: Value = { s: 'leaf' };
    for (let i = 0; i <= MAX_VALUE_DEPTH + 1; i++) v = { a: [v] };
    expect(() => convert(v)).toThrow(DecodeError);
  });

  test.prop([fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })], { seed: 11 })(
    'every int64 comes back as its exact decimal',
    (n) => {
      const [text, typed] = convert({ i: n });
      expect(text).toBe(n.toString());
      const parsed: unknown = JSON.parse(typed ?? 'null');
      expect(typeof parsed === 'number' ? BigInt(parsed) : BigInt(String(parsed))).toBe(n);
    },
  );

  test.prop([fc.maxSafeInteger()], { seed: 13, numRuns: 1000 })(
    'writes safe integers digit by digit exactly as String() does',
    (n) => {
      expect(convert({ i: BigInt(n) })).toEqual([String(n), String(n)]);
    },
  );

  test.prop([fc.double()], { seed: 12, numRuns: 1000 })(
    'every double comes back as the same number, -0 included',
    (d) => {
      const [text, typed] = convert({ d });
      expect(Object.is(Number(text), d)).toBe(true);
      const back: unknown = JSON.parse(typed ?? 'null');
      expect(Object.is(typeof back === 'string' ? Number(back) : back, d)).toBe(true);
    },
  );
});
