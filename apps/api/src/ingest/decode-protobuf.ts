import { ByteSink } from './byte-sink';
import {
  DEFAULT_LIMITS,
  REQUEST,
  RESOURCE,
  RESOURCE_SPANS,
  SCOPE,
  SCOPE_SPANS,
  active,
  beginRequest,
  skipChecked,
  type IngestLimits,
} from './limits';
import { SpanColumns } from './span-columns';
import { ProtoReader } from './proto-reader';
import { decodeSpan } from './decode-span';
import {
  SERVICE_NAME,
  T_LEN1,
  T_LEN2,
  prefixBytes,
  writeKeyValue,
  type Resource,
  type Scope,
  type TypedSink,
} from './proto-helpers';

/**
 * ExportTraceServiceRequest (protobuf) -> Native columns, in one pass over the bytes and without
 * a JS object per span. Strings are copied with their length prefix (protobuf's and Native's
 * are the same LEB128), ids are hex-encoded through a table, timestamps are copied as the
 * little-endian 64-bit integers they already are.
 *
 * Spans with invalid ids are counted as rejected and skipped; anything malformed makes the
 * whole request a DecodeError before a single span is queued.
 */

export interface DecodedRequest {
  columns: SpanColumns;
  /** Spans written to `columns`. */
  accepted: number;
  /** Spans refused (invalid ids or times), with the first reason. */
  rejected: number;
  rejectReason: string;
  /** What the limits dropped or truncated, as a partial-success warning ('' when nothing). */
  dropMessage: string;
}

export function decodeResource(r: ProtoReader, start: number, end: number): Resource {
  const keys = new ByteSink(256);
  const vals = new ByteSink(256);
  const typed: TypedSink = { keys: new ByteSink(64), vals: new ByteSink(64), count: 0 };
  let count = 0;
  let service = Buffer.from([0]);
  r.p = start;
  while (r.p < end) {
    const t = r.varint32(end);
    if (t === T_LEN1) {
      const kvEnd = r.lenEnd(end);
      const kvStart = r.p;
      const valsBefore = vals.len;
      const keysBefore = keys.len;
      if (count >= active.limits.maxAttributes) {
        active.drops.attributes++;
        r.p = kvEnd;
        continue;
      }
      if (!writeKeyValue(r, kvStart, kvEnd, keys, vals, RESOURCE_PREFIX, typed)) {
        r.p = kvEnd;
        continue;
      }
      count++;
      // service.name -> ServiceName: compare the key bytes (after the 1-byte length 12).
      const k = keys.buf;
      if (keys.len - keysBefore === 13 && k[keysBefore] === 12) {
        if (k.compare(SERVICE_NAME, 0, 12, keysBefore + 1, keysBefore + 13) === 0) {
          service = Buffer.from(vals.buf.subarray(valsBefore, vals.len));
        }
      }
      r.p = kvEnd;
    } else skipChecked(r, t, end, RESOURCE);
  }
  return {
    keys: Buffer.from(keys.bytes()),
    vals: Buffer.from(vals.bytes()),
    count,
    service,
    typedKeys: Buffer.from(typed.keys.bytes()),
    typedVals: Buffer.from(typed.vals.bytes()),
    typedCount: typed.count,
  };
}

export const NO_RESOURCE: Resource = {
  keys: Buffer.alloc(0),
  vals: Buffer.alloc(0),
  count: 0,
  service: Buffer.from([0]),
  typedKeys: Buffer.alloc(0),
  typedVals: Buffer.alloc(0),
  typedCount: 0,
};

const RESOURCE_PREFIX = prefixBytes('r:');

export function decodeScope(r: ProtoReader, start: number, end: number): Scope {
  const s: Scope = { nameAt: -1, nameEnd: -1, versionAt: -1, versionEnd: -1 };
  r.p = start;
  while (r.p < end) {
    const t = r.varint32(end);
    if (t === T_LEN1) {
      s.nameAt = r.p;
      s.nameEnd = r.lenEnd(end);
      r.p = s.nameEnd;
    } else if (t === T_LEN2) {
      s.versionAt = r.p;
      s.versionEnd = r.lenEnd(end);
      r.p = s.versionEnd;
    } else skipChecked(r, t, end, SCOPE);
  }
  return s;
}

/** Walks ExportTraceServiceRequest -> ResourceSpans -> ScopeSpans -> Span. */
export function decodeTraceRequest(
  input: Uint8Array,
  limits: IngestLimits = DEFAULT_LIMITS,
): DecodedRequest {
  const b = beginRequest(input, limits);
  const r = new ProtoReader(b);
  const out: DecodedRequest = {
    columns: new SpanColumns(b.length),
    accepted: 0,
    rejected: 0,
    rejectReason: '',
    dropMessage: '',
  };
  const end = b.length;
  try {
    while (r.p < end) {
      const t = r.varint32(end);
      if (t === T_LEN1) {
        const rsEnd = r.lenEnd(end);
        decodeResourceSpans(r, r.p, rsEnd, out);
        r.p = rsEnd;
      } else skipChecked(r, t, end, REQUEST);
    }
  } catch (err) {
    out.columns.release();
    throw err;
  }
  out.dropMessage = active.drops.message(limits);
  return out;
}

function decodeResourceSpans(
  r: ProtoReader,
  start: number,
  end: number,
  out: DecodedRequest,
): void {
  // Fields may come in any order: find the resource first, then walk the scopes.
  let resStart = -1;
  let resEnd = -1;
  r.p = start;
  while (r.p < end) {
    const t = r.varint32(end);
    if (t === T_LEN1) {
      resEnd = r.lenEnd(end);
      resStart = r.p;
      r.p = resEnd;
    } else skipChecked(r, t, end, RESOURCE_SPANS);
  }
  const resource = resStart < 0 ? NO_RESOURCE : decodeResource(r, resStart, resEnd);
  r.p = start;
  while (r.p < end) {
    const t = r.varint32(end);
    if (t === T_LEN2) {
      const ssEnd = r.lenEnd(end);
      decodeScopeSpans(r, r.p, ssEnd, resource, out);
      r.p = ssEnd;
    } else r.skip(t & 7, end);
  }
}

function decodeScopeSpans(
  r: ProtoReader,
  start: number,
  end: number,
  resource: Resource,
  out: DecodedRequest,
): void {
  let scope: Scope = { nameAt: -1, nameEnd: -1, versionAt: -1, versionEnd: -1 };
  r.p = start;
  while (r.p < end) {
    const t = r.varint32(end);
    if (t === T_LEN1) {
      const e = r.lenEnd(end);
      scope = decodeScope(r, r.p, e);
      r.p = e;
    } else skipChecked(r, t, end, SCOPE_SPANS);
  }
  r.p = start;
  while (r.p < end) {
    const t = r.varint32(end);
    if (t === T_LEN2) {
      const spanEnd = r.lenEnd(end);
      decodeSpan(r, r.p, spanEnd, resource, scope, out);
      r.p = spanEnd;
    } else r.skip(t & 7, end);
  }
}

/** Counts `tag` fields in [start, end), calling `inner` on each instead when given. */
function countFields(
  r: ProtoReader,
  start: number,
  end: number,
  tag: number,
  inner?: (s: number, e: number) => number,
): number {
  let n = 0;
  r.p = start;
  while (r.p < end) {
    const t = r.varint32(end);
    if (t === tag) {
      const e = r.lenEnd(end);
      const s = r.p;
      n += inner ? inner(s, e) : 1;
      r.p = e;
    } else r.skip(t & 7, end);
  }
  return n;
}

/**
 * The number of spans in a request, from its framing alone (no decoding): what a replayed
 * record will add, for the replay backlog. 0 for bytes that do not parse.
 */
export function countSpans(b: Buffer): number {
  const r = new ProtoReader(b);
  try {
    return countFields(r, 0, b.length, T_LEN1, (rs, re) =>
      countFields(r, rs, re, T_LEN2, (ss, se) => countFields(r, ss, se, T_LEN2)),
    );
  } catch {
    return 0;
  }
}
