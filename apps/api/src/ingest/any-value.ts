import type { ByteSink } from './byte-sink';
import { DecodeError, ProtoReader, WIRE_I64, WIRE_LEN, WIRE_VARINT } from './proto-reader';

/**
 * OTLP AnyValue -> the two forms Tailscope stores:
 *  - the exporter's string (otel_traces keeps Map(String, String), as the clickhouseexporter
 *    writes it: ints in decimal, doubles in shortest form, booleans true/false, bytes base64,
 *    arrays and kvlists as JSON with sorted keys, like Go's json.Marshal of AsRaw());
 *  - for values that are not strings, the natural JSON value the API returns (numbers,
 *    booleans, arrays, objects), kept in our companion table so the API can give types back.
 */

/** Nesting limit for arrays and kvlists: deeper values are refused rather than recursed into. */
export const MAX_VALUE_DEPTH = 64;

type Any =
  | { k: 's'; v: string }
  | { k: 'b'; v: boolean }
  | { k: 'i'; v: number | string }
  | { k: 'd'; v: number }
  | { k: 'y'; v: string }
  | { k: 'a'; v: Any[] }
  | { k: 'm'; v: [string, Any][] }
  | { k: 'n' };

// Wire type each AnyValue field must have (index = field number).
const ANY_WIRE = [-1, WIRE_LEN, WIRE_VARINT, WIRE_VARINT, WIRE_I64, WIRE_LEN, WIRE_LEN, WIRE_LEN];

const TWO32 = 4294967296;

/** A signed 64-bit integer given as unsigned halves: a number when exact, else decimal text. */
function int64Value(lo: number, hi: number): number | string {
  const shi = hi | 0;
  if (shi >= -0x200000 && shi < 0x200000) {
    const n = shi * TWO32 + lo;
    if (Number.isSafeInteger(n)) return n;
  }
  return ((BigInt(shi) << 32n) + BigInt(lo)).toString();
}

/** Doubles as JavaScript (and Go's pcommon) print them: shortest round-trip form. */
function formatDouble(d: number): string {
  // String(-0) is "0"; Go (and JSON.parse) keep the sign.
  return Object.is(d, -0) ? '-0' : String(d);
}

/** JSON text of a string as Go's encoding/json writes it (HTML-safe escapes). */
function goQuote(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => {
    return '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0');
  });
}

function goJson(v: Any): string {
  switch (v.k) {
    case 's':
    case 'y':
      return goQuote(v.v);
    case 'b':
      return v.v ? 'true' : 'false';
    case 'i':
      return String(v.v);
    case 'd':
      return Number.isFinite(v.v) ? formatDouble(v.v) : 'null';
    case 'a':
      return '[' + v.v.map(goJson).join(',') + ']';
    case 'm': {
      // Go marshals a map: keys sorted, a repeated key keeps its last value.
      const byKey = new Map<string, Any>();
      for (const [key, val] of v.v) byKey.set(key, val);
      const keys = [...byKey.keys()].sort();
      return (
        '{' +
        keys.map((key) => goQuote(key) + ':' + goJson(byKey.get(key) ?? { k: 'n' })).join(',') +
        '}'
      );
    }
    case 'n':
      return 'null';
  }
}

function natural(v: Any): unknown {
  switch (v.k) {
    case 's':
    case 'y':
    case 'b':
      return v.v;
    case 'i':
      return v.v;
    case 'd':
      return Number.isFinite(v.v) ? v.v : formatDouble(v.v);
    case 'a':
      return v.v.map(natural);
    case 'm':
      return Object.fromEntries(v.v.map(([key, val]) => [key, natural(val)]));
    case 'n':
      return null;
  }
}

/** The set field of the last AnyValue scanned and where its value starts. */
let anyField = 0;
let anyAt = 0;

/**
 * Finds the AnyValue's set field (the last one wins, as for a protobuf oneof) into
 * anyField / anyAt: module state rather than a returned object, which would be an allocation
 * per attribute on the hot path.
 */
function scanAny(r: ProtoReader, start: number, end: number): void {
  r.p = start;
  anyField = 0;
  anyAt = 0;
  while (r.p < end) {
    const tag = r.varint32(end);
    const f = tag >>> 3;
    const w = tag & 7;
    if (f >= 1 && f <= 7) {
      if (ANY_WIRE[f] !== w)
        throw new DecodeError(`AnyValue field ${f} has wire type ${w}, expected ${ANY_WIRE[f]}`);
      anyField = f;
      anyAt = r.p;
    }
    r.skip(w, end);
  }
}

function toAny(r: ProtoReader, start: number, end: number, depth: number): Any {
  if (depth > MAX_VALUE_DEPTH)
    throw new DecodeError(`attribute value nested deeper than ${MAX_VALUE_DEPTH}`);
  scanAny(r, start, end);
  const field = anyField;
  const at = anyAt;
  const b = r.b;
  r.p = at;
  switch (field) {
    case 1: {
      const e = r.lenEnd(end);
      return { k: 's', v: b.toString('utf8', r.p, e) };
    }
    case 2:
      r.varint64(end);
      return { k: 'b', v: (r.lo | r.hi) !== 0 };
    case 3:
      r.varint64(end);
      return { k: 'i', v: int64Value(r.lo, r.hi) };
    case 4:
      return { k: 'd', v: r.double(at) };
    case 5: {
      const e = r.lenEnd(end);
      const items: Any[] = [];
      while (r.p < e) {
        const tag = r.varint32(e);
        if (tag === ((1 << 3) | WIRE_LEN)) {
          const ie = r.lenEnd(e);
          const next = ie;
          items.push(toAny(r, r.p, ie, depth + 1));
          r.p = next;
        } else r.skip(tag & 7, e);
      }
      return { k: 'a', v: items };
    }
    case 6: {
      const e = r.lenEnd(end);
      const entries: [string, Any][] = [];
      while (r.p < e) {
        const tag = r.varint32(e);
        if (tag === ((1 << 3) | WIRE_LEN)) {
          const kvEnd = r.lenEnd(e);
          entries.push(toKeyValue(r, r.p, kvEnd, depth + 1));
          r.p = kvEnd;
        } else r.skip(tag & 7, e);
      }
      return { k: 'm', v: entries };
    }
    case 7: {
      const e = r.lenEnd(end);
      return { k: 'y', v: b.toString('base64', r.p, e) };
    }
    default:
      return { k: 'n' };
  }
}

function toKeyValue(r: ProtoReader, start: number, end: number, depth: number): [string, Any] {
  r.p = start;
  let key = '';
  let vStart = -1;
  let vEnd = -1;
  while (r.p < end) {
    const tag = r.varint32(end);
    if (tag === ((1 << 3) | WIRE_LEN)) {
      const e = r.lenEnd(end);
      key = r.b.toString('utf8', r.p, e);
      r.p = e;
    } else if (tag === ((2 << 3) | WIRE_LEN)) {
      vEnd = r.lenEnd(end);
      vStart = r.p;
      r.p = vEnd;
    } else r.skip(tag & 7, end);
  }
  return [key, vStart < 0 ? { k: 'n' } : toAny(r, vStart, vEnd, depth)];
}

/**
 * Writes the exporter's string form of the AnyValue in `r.b[start, end)` to `out`, and, when the
 * value is not a string (nor bytes, whose natural form is the same base64 text), its natural JSON
 * to `typed`; both as Native Strings. Returns whether `typed` got a value. Ints, the common typed
 * value, are written as digits without making a JS string. Leaves `r.p` unspecified.
 */
export function writeAnyValue(
  r: ProtoReader,
  start: number,
  end: number,
  out: ByteSink,
  typed: ByteSink,
): boolean {
  scanAny(r, start, end);
  const field = anyField;
  const at = anyAt;
  const b = r.b;
  r.p = at;
  switch (field) {
    case 1: {
      // The protobuf length prefix is the Native one: copy prefix and bytes in one go.
      const e = r.lenEnd(end);
      out.copy(b, at, e);
      return false;
    }
    case 2: {
      r.varint64(end);
      const s = (r.lo | r.hi) !== 0 ? 'true' : 'false';
      out.string(s);
      typed.string(s);
      return true;
    }
    case 3: {
      r.varint64(end);
      const v = int64Value(r.lo, r.hi);
      if (typeof v === 'number') {
        out.decimal(v);
        typed.decimal(v);
      } else {
        out.string(v);
        typed.string(JSON.stringify(v));
      }
      return true;
    }
    case 4: {
      const d = r.double(at);
      const s = formatDouble(d);
      out.string(s);
      typed.string(Number.isFinite(d) ? s : JSON.stringify(s));
      return true;
    }
    case 5:
    case 6: {
      const v = toAny(r, start, end, 0);
      out.string(goJson(v));
      typed.string(JSON.stringify(natural(v)));
      return true;
    }
    case 7: {
      const e = r.lenEnd(end);
      out.string(b.toString('base64', r.p, e));
      return false;
    }
    default:
      out.u8(0);
      typed.string('null');
      return true;
  }
}
