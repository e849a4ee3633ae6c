import type { SpanColumns } from './span-columns';
import { WIRE_I64, WIRE_LEN, WIRE_VARINT, type ProtoReader } from './proto-reader';
import { allZero, tag } from './proto-helpers';
import { LINK, MAX_TIME_NS, SPAN, active, skipChecked } from './limits';

/**
 * Pass 1 over a Span: where its singular fields are, and whether its ids are valid, without
 * writing anything. A span that fails here is rejected whole and never touches the columns.
 */

const T_TRACE_ID = tag(1, WIRE_LEN);
const T_SPAN_ID = tag(2, WIRE_LEN);
const T_TRACE_STATE = tag(3, WIRE_LEN);
const T_PARENT = tag(4, WIRE_LEN);
const T_NAME = tag(5, WIRE_LEN);
const T_KIND = tag(6, WIRE_VARINT);
const T_START = tag(7, WIRE_I64);
const T_END = tag(8, WIRE_I64);
export const T_ATTR = tag(9, WIRE_LEN);
export const T_EVENT = tag(11, WIRE_LEN);
export const T_LINK = tag(13, WIRE_LEN);
const T_STATUS = tag(15, WIRE_LEN);
const T_LN_TRACE_ID = tag(1, WIRE_LEN);
const T_LN_SPAN_ID = tag(2, WIRE_LEN);

/** Positions of a span's singular fields; -1 when absent. Reused across spans. */
export class SpanFields {
  traceId = -1;
  traceIdLen = 0;
  spanId = -1;
  spanIdLen = 0;
  parent = -1;
  parentLen = 0;
  stateAt = -1;
  stateEnd = -1;
  nameAt = -1;
  nameEnd = -1;
  kind = 0;
  start = -1;
  end = -1;
  statusAt = -1;
  statusEnd = -1;
  badLink = false;

  reset(): void {
    this.traceId = this.spanId = this.parent = -1;
    this.traceIdLen = this.spanIdLen = this.parentLen = 0;
    this.stateAt = this.stateEnd = this.nameAt = this.nameEnd = -1;
    this.kind = 0;
    this.start = this.end = this.statusAt = this.statusEnd = -1;
    this.badLink = false;
  }
}

/** Checks a Link's ids without writing anything (pass 1). */
function linkIdsValid(r: ProtoReader, start: number, end: number): boolean {
  r.p = start;
  let ok = true;
  while (r.p < end) {
    const t = r.varint32(end);
    if (t === T_LN_TRACE_ID || t === T_LN_SPAN_ID) {
      const e = r.lenEnd(end);
      const n = e - r.p;
      if (n !== (t === T_LN_TRACE_ID ? 16 : 8)) ok = false;
      r.p = e;
    } else skipChecked(r, t, end, LINK);
  }
  return ok;
}

export function scanSpan(r: ProtoReader, start: number, end: number, f: SpanFields): void {
  f.reset();
  r.p = start;
  while (r.p < end) {
    const t = r.varint32(end);
    switch (t) {
      case T_TRACE_ID:
      case T_SPAN_ID:
      case T_PARENT: {
        const e = r.lenEnd(end);
        const n = e - r.p;
        // Plain assignments: a destructuring swap would allocate an array per field.
        if (t === T_TRACE_ID) {
          f.traceId = r.p;
          f.traceIdLen = n;
        } else if (t === T_SPAN_ID) {
          f.spanId = r.p;
          f.spanIdLen = n;
        } else {
          f.parent = r.p;
          f.parentLen = n;
        }
        r.p = e;
        break;
      }
      case T_TRACE_STATE:
      case T_NAME: {
        const at = r.p;
        const e = r.lenEnd(end);
        if (t === T_NAME) {
          f.nameAt = at;
          f.nameEnd = e;
        } else {
          f.stateAt = at;
          f.stateEnd = e;
        }
        r.p = e;
        break;
      }
      case T_KIND:
        f.kind = r.varint32(end);
        break;
      case T_START:
      case T_END:
        if (t === T_START) f.start = r.p;
        else f.end = r.p;
        r.skip(WIRE_I64, end);
        break;
      case T_STATUS:
        f.statusEnd = r.lenEnd(end);
        f.statusAt = r.p;
        r.p = f.statusEnd;
        break;
      case T_LINK: {
        const e = r.lenEnd(end);
        if (!linkIdsValid(r, r.p, e)) f.badLink = true;
        r.p = e;
        break;
      }
      default:
        skipChecked(r, t, end, SPAN);
    }
  }
}

/** Why a span is refused, or '' when its ids are valid (the OTLP spec's rules). */
export function invalidReason(b: Buffer, f: SpanFields): string {
  if (f.traceIdLen !== 16 || allZero(b, f.traceId, 16))
    return 'invalid trace id (must be 16 bytes, not all zero)';
  if (f.spanIdLen !== 8 || allZero(b, f.spanId, 8))
    return 'invalid span id (must be 8 bytes, not all zero)';
  if (f.parentLen !== 0 && f.parentLen !== 8)
    return 'invalid parent span id (must be empty or 8 bytes)';
  if (f.badLink) return 'invalid link id (trace id 16 bytes, span id 8 bytes)';
  return timeReason(b, f);
}

/** A 64-bit time as a double: exact enough to compare with bounds microseconds apart. */
function timeNs(b: Buffer, at: number): number {
  return u32(b, at + 4) * 4294967296 + u32(b, at);
}

/**
 * Times the store cannot hold or show: DateTime64(9) reads 2^63 ns and above as negative, and
 * the API's time ranges end before 2200. A span that ends before it starts by more than the
 * tolerance is a broken clock, not a measurement.
 */
function timeReason(b: Buffer, f: SpanFields): string {
  const start = f.start < 0 ? 0 : timeNs(b, f.start);
  if (start >= MAX_TIME_NS)
    return 'start time out of range (must be before 2200-01-01T00:00:00Z and below 2^63 ns)';
  if (f.end < 0) return '';
  const end = timeNs(b, f.end);
  if (end >= MAX_TIME_NS)
    return 'end time out of range (must be before 2200-01-01T00:00:00Z and below 2^63 ns)';
  if (end !== 0 && end < start - active.limits.endBeforeStartToleranceNs)
    return `end time before start time by more than ${active.limits.endBeforeStartToleranceNs} ns`;
  return '';
}

function u32(b: Buffer, at: number): number {
  return (
    ((b[at] ?? 0) |
      ((b[at + 1] ?? 0) << 8) |
      ((b[at + 2] ?? 0) << 16) |
      ((b[at + 3] ?? 0) << 24)) >>>
    0
  );
}

/** end - start in nanoseconds as UInt64 halves; a span that ends before it starts lasts 0. */
export function writeDuration(c: SpanColumns, b: Buffer, f: SpanFields): void {
  if (f.start < 0 || f.end < 0) {
    c.duration.u64(0, 0);
    return;
  }
  const sLo = u32(b, f.start);
  const sHi = u32(b, f.start + 4);
  const eLo = u32(b, f.end);
  const eHi = u32(b, f.end + 4);
  let lo = eLo - sLo;
  let hi = eHi - sHi;
  if (lo < 0) {
    lo += 4294967296;
    hi -= 1;
  }
  if (hi < 0) c.duration.u64(0, 0);
  else c.duration.u64(lo, hi);
}
