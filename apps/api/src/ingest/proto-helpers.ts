import { ByteSink } from './byte-sink';
import { writeAnyValue } from './any-value';
import { ProtoReader, WIRE_LEN } from './proto-reader';
import { KEY_VALUE, active, skipChecked } from './limits';

/** Small writers shared by the span and resource decoders. */

export const tag = (field: number, wire: number) => (field << 3) | wire;
export const T_LEN1 = tag(1, WIRE_LEN);
export const T_LEN2 = tag(2, WIRE_LEN);

const HEX = new Uint8Array(512);
for (let i = 0; i < 256; i++) {
  const s = i.toString(16).padStart(2, '0');
  HEX[2 * i] = s.charCodeAt(0);
  HEX[2 * i + 1] = s.charCodeAt(1);
}

/** Writes `n` bytes at `b[at]` as a Native String of 2n lowercase hex digits. */
export function writeHex(out: ByteSink, b: Buffer, at: number, n: number): void {
  out.reserve(2 * n + 1);
  const o = out.buf;
  let p = out.len;
  o[p++] = 2 * n;
  for (let i = at; i < at + n; i++) {
    const v = b[i] ?? 0;
    o[p++] = HEX[2 * v] ?? 0;
    o[p++] = HEX[2 * v + 1] ?? 0;
  }
  out.len = p;
}

export function allZero(b: Buffer, at: number, n: number): boolean {
  let x = 0;
  for (let i = at; i < at + n; i++) x |= b[i] ?? 0;
  return x === 0;
}

function nativeString(s: string): Buffer {
  const sink = new ByteSink(32);
  sink.string(s);
  return Buffer.from(sink.bytes());
}

// The clickhouseexporter's spellings (traceutil.SpanKindStr / StatusCodeStr).
export const KINDS = ['Unspecified', 'Internal', 'Server', 'Client', 'Producer', 'Consumer'].map(
  nativeString,
);
export const STATUS = ['Unset', 'Ok', 'Error'].map(nativeString);
export const KIND_UNSPECIFIED = nativeString('Unspecified');
export const STATUS_UNSET = nativeString('Unset');
export const EMPTY = 0;
const ZERO8 = Buffer.alloc(8);
export const SERVICE_NAME = Buffer.from('service.name');

export function writeFixed8(out: ByteSink, b: Buffer, at: number): void {
  if (at < 0) {
    out.copy(ZERO8, 0, 8);
    return;
  }
  out.copy(b, at, at + 8);
}

/** Copies a length-prefixed string field (position of its prefix) or writes an empty string. */
export function writeStr(out: ByteSink, b: Buffer, at: number, end: number): void {
  if (at < 0) out.u8(EMPTY);
  else out.copy(b, at, end);
}

export interface Resource {
  keys: Buffer;
  vals: Buffer;
  count: number;
  service: Buffer;
  /** Its typed values, already as Native strings (`r:`-prefixed keys, JSON values). */
  typedKeys: Buffer;
  typedVals: Buffer;
  typedCount: number;
}

/** Where typed values go: Native strings of prefixed keys and of JSON values, and a count. */
export interface TypedSink {
  keys: ByteSink;
  vals: ByteSink;
  count: number;
}

const PREFIXES = new Map<string, Buffer>();

/** The bytes of a typed-key prefix (`s:`, `r:`, `e3:`...), made once. */
export function prefixBytes(prefix: string): Buffer {
  let b = PREFIXES.get(prefix);
  if (!b) {
    b = Buffer.from(prefix, 'latin1');
    if (PREFIXES.size < 4096) PREFIXES.set(prefix, b);
  }
  return b;
}

export interface Scope {
  nameAt: number;
  nameEnd: number;
  versionAt: number;
  versionEnd: number;
}

/**
 * A string AnyValue longer than the limit, cut on a UTF-8 character boundary; or false when the
 * value is not a plain string (such a value is dropped instead).
 */
function writeTruncatedString(
  r: ProtoReader,
  vStart: number,
  vEnd: number,
  vals: ByteSink,
): boolean {
  r.p = vStart;
  if (r.varint32(vEnd) !== T_LEN1) return false;
  const e = r.lenEnd(vEnd);
  if (e !== vEnd) return false;
  const b = r.b;
  let cut = r.p + active.limits.maxValueBytes;
  // Back off continuation bytes (10xxxxxx) so the cut never splits a character.
  while (cut > r.p && ((b[cut] ?? 0) & 0xc0) === 0x80) cut--;
  vals.varint(cut - r.p);
  vals.copy(b, r.p, cut);
  return true;
}

/**
 * Appends one KeyValue to keys/vals; a non-string value also goes to `typed`. Returns false
 * when the value is over the size limit and not a string (the attribute is dropped, counted).
 */
export function writeKeyValue(
  r: ProtoReader,
  start: number,
  end: number,
  keys: ByteSink,
  vals: ByteSink,
  prefix: Buffer,
  typed: TypedSink,
): boolean {
  const b = r.b;
  r.p = start;
  let keyAt = -1;
  let keyEnd = -1;
  let vStart = -1;
  let vEnd = -1;
  while (r.p < end) {
    const t = r.varint32(end);
    if (t === T_LEN1) {
      keyAt = r.p;
      keyEnd = r.lenEnd(end);
      r.p = keyEnd;
    } else if (t === T_LEN2) {
      vEnd = r.lenEnd(end);
      vStart = r.p;
      r.p = vEnd;
    } else skipChecked(r, t, end, KEY_VALUE);
  }
  let isTyped: boolean;
  if (vStart >= 0 && vEnd - vStart > active.limits.maxValueBytes) {
    const valsBefore = vals.len;
    if (!writeTruncatedString(r, vStart, vEnd, vals)) {
      vals.len = valsBefore;
      active.drops.attributes++;
      return false;
    }
    active.drops.truncatedValues++;
    writeStr(keys, b, keyAt, keyEnd);
    return true;
  }
  writeStr(keys, b, keyAt, keyEnd);
  if (vStart < 0) {
    vals.u8(EMPTY);
    typed.vals.string('null');
    isTyped = true;
  } else isTyped = writeAnyValue(r, vStart, vEnd, vals, typed.vals);
  if (!isTyped) return true;
  // The typed key is the prefix and the key's bytes, copied without making a JS string.
  let keyStart = keyEnd;
  if (keyAt >= 0) {
    r.p = keyAt;
    r.lenEnd(end);
    keyStart = r.p;
  }
  typed.keys.varint(prefix.length + keyEnd - keyStart);
  typed.keys.copy(prefix, 0, prefix.length);
  if (keyAt >= 0) typed.keys.copy(b, keyStart, keyEnd);
  typed.count++;
  return true;
}
