import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { fanoutSpans, jsonRequest, protobufRequest } from '../testing/otlp-fixtures';
import { decodeTraceRequest } from './decode-protobuf';
import { jsonToProtobuf } from './decode-json';
import { DecodeError } from './proto-reader';

const blocks = (body: Buffer) => {
  const d = decodeTraceRequest(body);
  return {
    traces: Buffer.concat(d.columns.tracesBlock()),
    typed: Buffer.concat(d.columns.typedBlock()),
    accepted: d.accepted,
  };
};

function otlpJson(spans: Record<string, unknown>[]): Buffer {
  return Buffer.from(
    JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
          scopeSpans: [{ scope: { name: 'scope', version: '1' }, spans }],
        },
      ],
    }),
  );
}

const valid = (i: number) => ({
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: (i + 1).toString(16).padStart(16, '0'),
  name: `op-${i}`,
  startTimeUnixNano: '1763800000000000000',
  endTimeUnixNano: '1763800000000001000',
});

describe('decodeTraceRequest', () => {
  it('decodes every span of an SDK-serialized request', () => {
    const spans = fanoutSpans(1000, 3);
    const d = decodeTraceRequest(protobufRequest(spans));
    expect(d.accepted).toBe(1000);
    expect(d.rejected).toBe(0);
    expect(d.columns.rows).toBe(1000);
    // Every span has an int attribute (status code, port or pid): one typed row each.
    expect(d.columns.typedRows).toBe(1000);
  });

  it('gives the same columns for the SDK JSON and protobuf encodings of the same spans', () => {
    const spans = fanoutSpans(300, 5);
    const fromProto = blocks(protobufRequest(spans));
    const fromJson = blocks(jsonToProtobuf(jsonRequest(spans)));
    expect(fromJson.accepted).toBe(300);
    expect(fromJson.traces.equals(fromProto.traces)).toBe(true);
    expect(fromJson.typed.equals(fromProto.typed)).toBe(true);
  });

  it('treats two concatenated requests as one (repeated fields merge, as in protobuf)', () => {
    const a = protobufRequest(fanoutSpans(10, 1));
    const b = protobufRequest(fanoutSpans(15, 2));
    expect(decodeTraceRequest(Buffer.concat([a, b])).accepted).toBe(25);
  });

  it('rejects spans with invalid ids and keeps the others', () => {
    const body = otlpJson([
      valid(0),
      { ...valid(1), traceId: '00000000000000000000000000000000' },
      { ...valid(2), spanId: 'abcd' },
      { ...valid(3), traceId: 'not hex at all, not hex at all!!' },
      { ...valid(4), parentSpanId: 'abc' },
      valid(5),
      { ...valid(6), spanId: undefined },
    ]);
    const d = decodeTraceRequest(jsonToProtobuf(body));
    expect(d.accepted).toBe(2);
    expect(d.rejected).toBe(5);
    expect(d.rejectReason).toMatch(/trace id/);
  });

  it('refuses malformed protobuf with a DecodeError naming the position', () => {
    expect(() => decodeTraceRequest(Buffer.from([0x0a, 0x05, 0x01]))).toThrow(/runs past/);
    expect(() => decodeTraceRequest(Buffer.from([0x0b]))).toThrow(/wire type 3/);
    expect(() => decodeTraceRequest(Buffer.from([0x08, 0xff, 0xff]))).toThrow(DecodeError);
  });

  it('names the bad field of an OTLP/JSON body', () => {
    expect(() => jsonToProtobuf(Buffer.from('{"resourceSpans":{}}'))).toThrow(
      /resourceSpans: expected an array/,
    );
    expect(() => jsonToProtobuf(otlpJson([{ ...valid(0), startTimeUnixNano: 'soon' }]))).toThrow(
      /spans\[0\]\.startTimeUnixNano/,
    );
    expect(() => jsonToProtobuf(Buffer.from('{'))).toThrow(/not JSON/);
  });

  it('accepts int64 as strings or numbers, enums as integers or names, snake_case names', () => {
    const a = blocks(jsonToProtobuf(otlpJson([{ ...valid(0), kind: 2, status: { code: 2 } }])));
    const b = blocks(
      jsonToProtobuf(
        otlpJson([
          {
            trace_id: valid(0).traceId.toUpperCase(),
            span_id: valid(0).spanId,
            name: 'op-0',
            start_time_unix_nano: 1763800000000000000,
            endTimeUnixNano: '1763800000000001000',
            kind: 'SPAN_KIND_SERVER',
            status: { code: 'STATUS_CODE_ERROR' },
            unknownField: { ignored: true },
          },
        ]),
      ),
    );
    expect(b.traces.equals(a.traces)).toBe(true);
  });

  const body = protobufRequest(fanoutSpans(40, 9));

  it('never fails with anything but a DecodeError on any truncation', () => {
    for (let n = 0; n < body.length; n += 7) {
      try {
        decodeTraceRequest(body.subarray(0, n));
      } catch (err) {
        expect(err).toBeInstanceOf(DecodeError);
      }
    }
  });

  test.prop(
    [
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), {
        minLength: 1,
        maxLength: 20,
      }),
    ],
    { numRuns: 300, seed: 42 },
  )('survives random byte edits of a valid request', (edits) => {
    const copy = Buffer.from(body);
    for (const [at, value] of edits) copy[at % copy.length] = value;
    try {
      const d = decodeTraceRequest(copy);
      expect(d.accepted + d.rejected).toBeLessThanOrEqual(2 * 40);
    } catch (err) {
      expect(err).toBeInstanceOf(DecodeError);
    }
  });

  test.prop([fc.uint8Array({ maxLength: 2000 })], { numRuns: 300, seed: 7 })(
    'survives random bytes',
    (bytes) => {
      try {
        decodeTraceRequest(Buffer.from(bytes));
      } catch (err) {
        expect(err).toBeInstanceOf(DecodeError);
      }
    },
  );
});

describe('OTLP/JSON int64 as JSON numbers', () => {
  const body = (start: string, int: string) =>
    Buffer.from(
      `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"${'ab'.repeat(16)}","spanId":"${'cd'.repeat(8)}","startTimeUnixNano":${start},"endTimeUnixNano":${start},"attributes":[{"key":"n","value":{"intValue":${int}}}]}]}]}]}`,
    );

  it('keeps numbers above 2^53 exact', () => {
    const d = decodeTraceRequest(jsonToProtobuf(body('1544712660123456789', '9007199254740993')));
    expect(d.accepted).toBe(1);
    const ts = d.columns.ts.bytes();
    expect(ts.readBigUInt64LE(0)).toBe(1544712660123456789n);
    expect(d.columns.attrVals.bytes().subarray(1).toString()).toBe('9007199254740993');
    d.columns.release();
  });

  it('refuses an int64 written with an exponent or a fraction beyond 2^53 (400, not 500)', () => {
    expect(() => jsonToProtobuf(body('1e300', '1'))).toThrow(DecodeError);
    expect(() => jsonToProtobuf(body('1', '12345678901234567.0'))).toThrow(/64-bit integer/);
  });
});
