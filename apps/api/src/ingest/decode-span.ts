import type { SpanColumns } from './span-columns';
import { WIRE_I64, WIRE_LEN, WIRE_VARINT, type ProtoReader } from './proto-reader';
import {
  EMPTY,
  KINDS,
  KIND_UNSPECIFIED,
  STATUS_UNSET,
  STATUS,
  allZero,
  tag,
  writeFixed8,
  writeHex,
  writeKeyValue,
  writeStr,
  prefixBytes,
  type Resource,
  type Scope,
  type TypedSink,
} from './proto-helpers';
import {
  SpanFields,
  T_ATTR,
  T_EVENT,
  T_LINK,
  invalidReason,
  scanSpan,
  writeDuration,
} from './span-scan';
import { ByteSink } from './byte-sink';
import { EVENT, LINK, STATUS_SHAPE, active, skipChecked } from './limits';

/** Where the counters for the request live (decode-protobuf's DecodedRequest). */
export interface SpanTally {
  columns: SpanColumns;
  accepted: number;
  rejected: number;
  rejectReason: string;
}

// Event and Link fields.
const T_EV_TIME = tag(1, WIRE_I64);
const T_EV_NAME = tag(2, WIRE_LEN);
const T_EV_ATTR = tag(3, WIRE_LEN);
const T_LN_STATE = tag(3, WIRE_LEN);
const T_LN_ATTR = tag(4, WIRE_LEN);
// Status fields.
const T_ST_MESSAGE = tag(2, WIRE_LEN);
const T_ST_CODE = tag(3, WIRE_VARINT);

const T_LN_TRACE_ID = tag(1, WIRE_LEN);
const T_LN_SPAN_ID = tag(2, WIRE_LEN);

const f = new SpanFields();
const SPAN_PREFIX = prefixBytes('s:');
/** The typed values of the span being decoded (its sinks are set per span). */
const typed: TypedSink = { keys: new ByteSink(16), vals: new ByteSink(16), count: 0 };

function writeStatus(r: ProtoReader, c: SpanColumns): void {
  let code = 0;
  let msgAt = -1;
  let msgEnd = -1;
  if (f.statusAt >= 0) {
    const end = f.statusEnd;
    r.p = f.statusAt;
    while (r.p < end) {
      const t = r.varint32(end);
      if (t === T_ST_CODE) code = r.varint32(end);
      else if (t === T_ST_MESSAGE) {
        msgAt = r.p;
        msgEnd = r.lenEnd(end);
        r.p = msgEnd;
      } else skipChecked(r, t, end, STATUS_SHAPE);
    }
  }
  const status = STATUS[code] ?? STATUS_UNSET;
  c.statusCode.copy(status, 0, status.length);
  writeStr(c.statusMessage, r.b, msgAt, msgEnd);
}

function writeEvent(
  r: ProtoReader,
  start: number,
  end: number,
  c: SpanColumns,
  index: number,
): void {
  let timeAt = -1;
  let nameAt = -1;
  let nameEnd = -1;
  const prefix = prefixBytes(`e${index}:`);
  let attrs = 0;
  r.p = start;
  while (r.p < end) {
    const t = r.varint32(end);
    if (t === T_EV_TIME) {
      timeAt = r.p;
      r.skip(WIRE_I64, end);
    } else if (t === T_EV_NAME) {
      nameAt = r.p;
      nameEnd = r.lenEnd(end);
      r.p = nameEnd;
    } else if (t === T_EV_ATTR) {
      const e = r.lenEnd(end);
      if (attrs >= active.limits.maxAttributes) active.drops.attributes++;
      else if (writeKeyValue(r, r.p, e, c.evAttrKeys, c.evAttrVals, prefix, typed)) {
        c.evAttrCount++;
        attrs++;
      }
      r.p = e;
    } else skipChecked(r, t, end, EVENT);
  }
  writeFixed8(c.evTs, r.b, timeAt);
  writeStr(c.evName, r.b, nameAt, nameEnd);
  c.evAttrOff.u64(c.evAttrCount, 0);
}

function writeLink(
  r: ProtoReader,
  start: number,
  end: number,
  c: SpanColumns,
  index: number,
): void {
  let traceAt = -1;
  let spanAt = -1;
  let stateAt = -1;
  let stateEnd = -1;
  const prefix = prefixBytes(`l${index}:`);
  let attrs = 0;
  r.p = start;
  while (r.p < end) {
    const t = r.varint32(end);
    if (t === T_LN_TRACE_ID || t === T_LN_SPAN_ID) {
      const e = r.lenEnd(end);
      if (t === T_LN_TRACE_ID) traceAt = r.p;
      else spanAt = r.p;
      r.p = e;
    } else if (t === T_LN_STATE) {
      stateAt = r.p;
      stateEnd = r.lenEnd(end);
      r.p = stateEnd;
    } else if (t === T_LN_ATTR) {
      const e = r.lenEnd(end);
      if (attrs >= active.limits.maxAttributes) active.drops.attributes++;
      else if (writeKeyValue(r, r.p, e, c.lnAttrKeys, c.lnAttrVals, prefix, typed)) {
        c.lnAttrCount++;
        attrs++;
      }
      r.p = e;
    } else skipChecked(r, t, end, LINK);
  }
  // Pass 1 checked the lengths of the ids that are present; absent ones are written empty.
  if (traceAt < 0) c.lnTraceId.u8(EMPTY);
  else writeHex(c.lnTraceId, r.b, traceAt, 16);
  if (spanAt < 0) c.lnSpanId.u8(EMPTY);
  else writeHex(c.lnSpanId, r.b, spanAt, 8);
  writeStr(c.lnTraceState, r.b, stateAt, stateEnd);
  c.lnAttrOff.u64(c.lnAttrCount, 0);
}

/**
 * Pass 2: the repeated fields (attributes, events, links), in wire order. Past the limits they
 * are skipped and counted, so a span with a million attributes costs a scan, not a million rows.
 */
function writeRepeated(r: ProtoReader, start: number, end: number, c: SpanColumns): void {
  const limits = active.limits;
  const drops = active.drops;
  let attrs = 0;
  let events = 0;
  let links = 0;
  r.p = start;
  while (r.p < end) {
    const t = r.varint32(end);
    if (t === T_ATTR) {
      const e = r.lenEnd(end);
      if (attrs >= limits.maxAttributes) drops.attributes++;
      else if (writeKeyValue(r, r.p, e, c.attrKeys, c.attrVals, SPAN_PREFIX, typed)) {
        c.attrCount++;
        attrs++;
      }
      r.p = e;
    } else if (t === T_EVENT) {
      const e = r.lenEnd(end);
      if (events >= limits.maxEventsPerSpan) drops.events++;
      else {
        writeEvent(r, r.p, e, c, events++);
        c.evCount++;
      }
      r.p = e;
    } else if (t === T_LINK) {
      const e = r.lenEnd(end);
      if (links >= limits.maxLinksPerSpan) drops.links++;
      else {
        writeLink(r, r.p, e, c, links++);
        c.lnCount++;
      }
      r.p = e;
    } else r.skip(t & 7, end);
  }
}

/**
 * The span's companion row: its typed values were appended to tKeys/tVals while decoding
 * (the resource's first); when there are any, the row's other columns follow.
 */
function writeTypedRow(c: SpanColumns, b: Buffer): void {
  if (typed.count === 0) return;
  writeHex(c.tTraceId, b, f.traceId, 16);
  writeHex(c.tSpanId, b, f.spanId, 8);
  writeFixed8(c.tTs, b, f.start);
  c.tCount += typed.count;
  c.tOff.u64(c.tCount, 0);
  c.typedRows++;
}

/** Decodes one Span into a row, or counts it as rejected. */
export function decodeSpan(
  r: ProtoReader,
  start: number,
  end: number,
  resource: Resource,
  scope: Scope,
  out: SpanTally,
): void {
  const b = r.b;
  scanSpan(r, start, end, f);
  const reason = invalidReason(b, f);
  if (reason !== '') {
    out.rejected++;
    if (out.rejectReason === '') out.rejectReason = reason;
    return;
  }
  const c = out.columns;
  typed.keys = c.tKeys;
  typed.vals = c.tVals;
  typed.count = resource.typedCount;
  c.tKeys.copy(resource.typedKeys, 0, resource.typedKeys.length);
  c.tVals.copy(resource.typedVals, 0, resource.typedVals.length);
  writeFixed8(c.ts, b, f.start);
  writeHex(c.traceId, b, f.traceId, 16);
  writeHex(c.spanId, b, f.spanId, 8);
  if (f.parentLen === 8 && !allZero(b, f.parent, 8)) writeHex(c.parentSpanId, b, f.parent, 8);
  else c.parentSpanId.u8(EMPTY);
  writeStr(c.traceState, b, f.stateAt, f.stateEnd);
  writeStr(c.name, b, f.nameAt, f.nameEnd);
  const kind = KINDS[f.kind] ?? KIND_UNSPECIFIED;
  c.kind.copy(kind, 0, kind.length);
  c.service.copy(resource.service, 0, resource.service.length);
  c.resKeys.copy(resource.keys, 0, resource.keys.length);
  c.resVals.copy(resource.vals, 0, resource.vals.length);
  c.resCount += resource.count;
  c.resOff.u64(c.resCount, 0);
  writeStr(c.scopeName, b, scope.nameAt, scope.nameEnd);
  writeStr(c.scopeVersion, b, scope.versionAt, scope.versionEnd);
  writeDuration(c, b, f);
  writeStatus(r, c);
  writeRepeated(r, start, end, c);
  c.attrOff.u64(c.attrCount, 0);
  c.evOff.u64(c.evCount, 0);
  c.lnOff.u64(c.lnCount, 0);
  writeTypedRow(c, b);
  c.rows++;
  out.accepted++;
}
