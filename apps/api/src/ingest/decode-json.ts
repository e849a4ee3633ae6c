import protobuf from 'protobufjs/minimal';
import { DecodeError } from './proto-reader';
import { quoteBigIntegers, startsWithBigIntegers } from './json-bigint';

/**
 * OTLP/JSON ExportTraceServiceRequest -> the protobuf bytes of the same request, so JSON takes
 * the protobuf path from there on (one decoder, one write-ahead-log format, the same rows).
 * Follows the OTLP/JSON rules: trace and span ids in hex, 64-bit integers as decimal strings or
 * numbers (kept exact above 2^53, see json-bigint.ts), enums as integers (their names are accepted too), lowerCamelCase field names (the
 * original snake_case names as well, as protobuf JSON parsers do), unknown fields ignored.
 *
 * Only the fields Tailscope stores are carried over. A wrong type anywhere is a DecodeError that
 * names the path; an id that is not hex becomes an invalid id, so its span is rejected alone.
 */

export type Json = Record<string, unknown>;
export type Writer = protobuf.Writer;

const KIND_NAMES = [
  'SPAN_KIND_UNSPECIFIED',
  'SPAN_KIND_INTERNAL',
  'SPAN_KIND_SERVER',
  'SPAN_KIND_CLIENT',
  'SPAN_KIND_PRODUCER',
  'SPAN_KIND_CONSUMER',
];
const STATUS_NAMES = ['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR'];
const MAX_DEPTH = 64;
const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

export function field(obj: Json, camel: string, snake?: string): unknown {
  const v = obj[camel];
  if (v !== undefined && v !== null) return v;
  return snake === undefined ? undefined : (obj[snake] ?? undefined);
}

export function object(v: unknown, path: string): Json | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new DecodeError(`${path}: expected an object`);
  return v as Json;
}

export function array(v: unknown, path: string): unknown[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new DecodeError(`${path}: expected an array`);
  return v;
}

export function string(v: unknown, path: string): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new DecodeError(`${path}: expected a string`);
  return v;
}

/** An int64 given as a JSON number JSON.parse could not hold exactly: parse again, exactly. */
class InexactNumber extends Error {}

/** A 64-bit integer given as a decimal string or a number. */
export function int64(v: unknown, path: string, unsigned: boolean): bigint | undefined {
  if (v === undefined) return undefined;
  let n: bigint;
  if (typeof v === 'number' && Number.isSafeInteger(v)) n = BigInt(v);
  else if (typeof v === 'number' && Number.isInteger(v)) throw new InexactNumber(path);
  else if (typeof v === 'string' && /^-?\d{1,20}$/.test(v)) n = BigInt(v);
  else throw new DecodeError(`${path}: expected a 64-bit integer (string or number)`);
  if (n < (unsigned ? 0n : INT64_MIN) || n > (unsigned ? UINT64_MAX : 2n ** 63n - 1n))
    throw new DecodeError(`${path}: out of range`);
  return n;
}

/** A double given as a JSON number or as a string (`"NaN"`, `"Infinity"`, decimal text). */
export function double(v: unknown, path: string): number {
  if (typeof v === 'number') return v;
  if (v === 'NaN' || v === 'Infinity' || v === '-Infinity') return Number(v);
  if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
  throw new DecodeError(`${path}: expected a number`);
}

function halves(n: bigint): { low: number; high: number } {
  const u = BigInt.asUintN(64, n);
  return { low: Number(u & 0xffffffffn), high: Number(u >> 32n) };
}

export function enumValue(v: unknown, names: string[], path: string): number {
  if (v === undefined) return 0;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < 2 ** 31) return v;
  if (typeof v === 'string') {
    const i = names.indexOf(v);
    if (i >= 0) return i;
  }
  throw new DecodeError(`${path}: expected an enum integer`);
}

/** Hex id -> bytes; anything that is not hex gives one byte, an id of invalid length. */
export function hexId(v: unknown, path: string): Buffer | undefined {
  const s = string(v, path);
  if (s === undefined || s === '') return undefined;
  if (s.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(s)) return Buffer.from([0]);
  return Buffer.from(s, 'hex');
}

export function writeFixed64(w: Writer, fieldNo: number, n: bigint | undefined): void {
  if (n === undefined) return;
  const { low, high } = halves(n);
  w.uint32((fieldNo << 3) | 1)
    .fixed32(low)
    .fixed32(high);
}

export function writeString(w: Writer, fieldNo: number, s: string | undefined): void {
  if (s !== undefined && s !== '') w.uint32((fieldNo << 3) | 2).string(s);
}

export function writeBytes(w: Writer, fieldNo: number, b: Buffer | undefined): void {
  if (b !== undefined) w.uint32((fieldNo << 3) | 2).bytes(b);
}

function writeAnyValue(w: Writer, v: Json, path: string, depth: number): void {
  if (depth > MAX_DEPTH) throw new DecodeError(`${path}: nested deeper than ${MAX_DEPTH}`);
  const sv = field(v, 'stringValue', 'string_value');
  if (sv !== undefined) {
    w.uint32((1 << 3) | 2).string(string(sv, `${path}.stringValue`) ?? '');
    return;
  }
  const bv = field(v, 'boolValue', 'bool_value');
  if (bv !== undefined) {
    if (typeof bv !== 'boolean') throw new DecodeError(`${path}.boolValue: expected a boolean`);
    w.uint32(2 << 3).bool(bv);
    return;
  }
  const iv = field(v, 'intValue', 'int_value');
  if (iv !== undefined) {
    const n = int64(iv, `${path}.intValue`, false) ?? 0n;
    w.uint32(3 << 3).int64(halves(n) as unknown as number);
    return;
  }
  const dv = field(v, 'doubleValue', 'double_value');
  if (dv !== undefined) {
    w.uint32((4 << 3) | 1).double(double(dv, `${path}.doubleValue`));
    return;
  }
  const av = field(v, 'arrayValue', 'array_value');
  if (av !== undefined) {
    const arr = object(av, `${path}.arrayValue`) ?? {};
    w.uint32((5 << 3) | 2).fork();
    array(arr.values, `${path}.arrayValue.values`).forEach((item, i) => {
      const p = `${path}.arrayValue.values[${i}]`;
      w.uint32((1 << 3) | 2).fork();
      writeAnyValue(w, object(item, p) ?? {}, p, depth + 1);
      w.ldelim();
    });
    w.ldelim();
    return;
  }
  const kv = field(v, 'kvlistValue', 'kvlist_value');
  if (kv !== undefined) {
    const list = object(kv, `${path}.kvlistValue`) ?? {};
    w.uint32((6 << 3) | 2).fork();
    writeKeyValues(w, 1, list.values, `${path}.kvlistValue.values`, depth + 1);
    w.ldelim();
    return;
  }
  const yv = field(v, 'bytesValue', 'bytes_value');
  if (yv !== undefined) {
    const s = string(yv, `${path}.bytesValue`) ?? '';
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(s))
      throw new DecodeError(`${path}.bytesValue: expected base64`);
    w.uint32((7 << 3) | 2).bytes(Buffer.from(s, 'base64'));
  }
}

export function writeKeyValues(
  w: Writer,
  fieldNo: number,
  v: unknown,
  path: string,
  depth = 0,
): void {
  array(v, path).forEach((item, i) => {
    const p = `${path}[${i}]`;
    const kv = object(item, p) ?? {};
    w.uint32((fieldNo << 3) | 2).fork();
    writeString(w, 1, string(field(kv, 'key'), `${p}.key`));
    const value = object(field(kv, 'value'), `${p}.value`);
    if (value) {
      w.uint32((2 << 3) | 2).fork();
      writeAnyValue(w, value, `${p}.value`, depth);
      w.ldelim();
    }
    w.ldelim();
  });
}

function writeEvent(w: Writer, ev: Json, path: string): void {
  writeFixed64(
    w,
    1,
    int64(field(ev, 'timeUnixNano', 'time_unix_nano'), `${path}.timeUnixNano`, true),
  );
  writeString(w, 2, string(field(ev, 'name'), `${path}.name`));
  writeKeyValues(w, 3, field(ev, 'attributes'), `${path}.attributes`);
}

function writeLink(w: Writer, ln: Json, path: string): void {
  writeBytes(w, 1, hexId(field(ln, 'traceId', 'trace_id'), `${path}.traceId`));
  writeBytes(w, 2, hexId(field(ln, 'spanId', 'span_id'), `${path}.spanId`));
  writeString(w, 3, string(field(ln, 'traceState', 'trace_state'), `${path}.traceState`));
  writeKeyValues(w, 4, field(ln, 'attributes'), `${path}.attributes`);
}

function writeSpan(w: Writer, s: Json, path: string): void {
  // An absent id stays absent (and the span is rejected): write an empty field for it.
  w.uint32((1 << 3) | 2).bytes(
    hexId(field(s, 'traceId', 'trace_id'), `${path}.traceId`) ?? Buffer.alloc(0),
  );
  w.uint32((2 << 3) | 2).bytes(
    hexId(field(s, 'spanId', 'span_id'), `${path}.spanId`) ?? Buffer.alloc(0),
  );
  writeString(w, 3, string(field(s, 'traceState', 'trace_state'), `${path}.traceState`));
  writeBytes(w, 4, hexId(field(s, 'parentSpanId', 'parent_span_id'), `${path}.parentSpanId`));
  writeString(w, 5, string(field(s, 'name'), `${path}.name`));
  const kind = enumValue(field(s, 'kind'), KIND_NAMES, `${path}.kind`);
  if (kind !== 0) w.uint32(6 << 3).int32(kind);
  const start = field(s, 'startTimeUnixNano', 'start_time_unix_nano');
  writeFixed64(w, 7, int64(start, `${path}.startTimeUnixNano`, true));
  const end = field(s, 'endTimeUnixNano', 'end_time_unix_nano');
  writeFixed64(w, 8, int64(end, `${path}.endTimeUnixNano`, true));
  writeKeyValues(w, 9, field(s, 'attributes'), `${path}.attributes`);
  array(field(s, 'events'), `${path}.events`).forEach((ev, i) => {
    w.uint32((11 << 3) | 2).fork();
    writeEvent(w, object(ev, `${path}.events[${i}]`) ?? {}, `${path}.events[${i}]`);
    w.ldelim();
  });
  array(field(s, 'links'), `${path}.links`).forEach((ln, i) => {
    w.uint32((13 << 3) | 2).fork();
    writeLink(w, object(ln, `${path}.links[${i}]`) ?? {}, `${path}.links[${i}]`);
    w.ldelim();
  });
  const status = object(field(s, 'status'), `${path}.status`);
  if (status) {
    w.uint32((15 << 3) | 2).fork();
    writeString(w, 2, string(field(status, 'message'), `${path}.status.message`));
    const code = enumValue(field(status, 'code'), STATUS_NAMES, `${path}.status.code`);
    if (code !== 0) w.uint32(3 << 3).int32(code);
    w.ldelim();
  }
}

function writeScopeSpans(w: Writer, ss: Json, path: string): void {
  const scope = object(field(ss, 'scope'), `${path}.scope`);
  if (scope) {
    w.uint32((1 << 3) | 2).fork();
    writeString(w, 1, string(field(scope, 'name'), `${path}.scope.name`));
    writeString(w, 2, string(field(scope, 'version'), `${path}.scope.version`));
    w.ldelim();
  }
  array(field(ss, 'spans'), `${path}.spans`).forEach((span, i) => {
    const p = `${path}.spans[${i}]`;
    w.uint32((2 << 3) | 2).fork();
    writeSpan(w, object(span, p) ?? {}, p);
    w.ldelim();
  });
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new DecodeError(`body is not JSON: ${(err as Error).message}`);
  }
}

/**
 * Parses an OTLP/JSON body and returns the equivalent protobuf request. JSON.parse rounds
 * integers above 2^53; when an int64 field meets one (rare: SDKs write int64 as strings), the
 * body is parsed again with its long integer literals turned into strings, which stay exact.
 * Bodies without such numbers pay nothing for this.
 */
export function jsonToProtobuf(body: Buffer): Buffer {
  return jsonBodyToProtobuf(body, convert);
}

/** The same for any OTLP request: `toProto` converts the parsed document. */
export function jsonBodyToProtobuf(body: Buffer, toProto: (doc: unknown) => Buffer): Buffer {
  const text = body.toString('utf8');
  // A body whose first span writes its times as bare numbers goes the exact way at once.
  if (!startsWithBigIntegers(text)) {
    try {
      return toProto(parse(text));
    } catch (err) {
      if (!(err instanceof InexactNumber)) throw err;
    }
  }
  try {
    return toProto(parse(quoteBigIntegers(text)));
  } catch (err) {
    // Still inexact: a number written with a fraction or an exponent (1e300).
    if (err instanceof InexactNumber)
      throw new DecodeError(`${err.message}: expected a 64-bit integer (string or number)`);
    throw err;
  }
}

function convert(doc: unknown): Buffer {
  const root = object(doc, 'request') ?? {};
  const w = protobuf.Writer.create();
  array(field(root, 'resourceSpans', 'resource_spans'), 'resourceSpans').forEach((rs, i) => {
    const p = `resourceSpans[${i}]`;
    const r = object(rs, p) ?? {};
    w.uint32((1 << 3) | 2).fork();
    const resource = object(field(r, 'resource'), `${p}.resource`);
    if (resource) {
      w.uint32((1 << 3) | 2).fork();
      writeKeyValues(w, 1, field(resource, 'attributes'), `${p}.resource.attributes`);
      w.ldelim();
    }
    array(field(r, 'scopeSpans', 'scope_spans'), `${p}.scopeSpans`).forEach((ss, j) => {
      const q = `${p}.scopeSpans[${j}]`;
      w.uint32((2 << 3) | 2).fork();
      writeScopeSpans(w, object(ss, q) ?? {}, q);
      w.ldelim();
    });
    w.ldelim();
  });
  return Buffer.from(w.finish());
}
