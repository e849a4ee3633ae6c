import { ByteSink } from './byte-sink';
import type { PointTable } from './metric-columns';
import { EXEMPLAR } from './metrics-shapes';
import { MAX_TIME_NS, active, skipChecked } from './limits';
import { WIRE_I64, WIRE_LEN, type ProtoReader } from './proto-reader';
import {
  allZero,
  prefixBytes,
  tag,
  writeHex,
  writeKeyValue,
  type Resource,
  type TypedSink,
} from './proto-helpers';

/**
 * What every metrics row carries (resource, scope, metric, point attributes, times, exemplars),
 * written from positions in the request bytes. Shared by the five point kinds.
 */

/** The scope of a ScopeMetrics, as Native bytes, made once per scope. */
export interface MetricScope {
  name: Buffer;
  version: Buffer;
  keys: Buffer;
  vals: Buffer;
  count: number;
  dropped: number;
  schema: Buffer;
}

/** Where one row's context comes from. Positions are of length prefixes (-1: absent). */
export interface MetricContext {
  resource: Resource;
  resourceSchema: Buffer;
  scope: MetricScope;
  nameAt: number;
  nameEnd: number;
  descAt: number;
  descEnd: number;
  unitAt: number;
  unitEnd: number;
}

const NO_PREFIX = prefixBytes('');
/** Typed copies are for spans only (tailscope_typed_attributes): written here and dropped. */
const SCRATCH: TypedSink = { keys: new ByteSink(64), vals: new ByteSink(64), count: 0 };
const EMPTY_STRING = 0;

/** Writes the `field` KeyValues of [start, end) as one Map row; returns the entries written. */
export function writeAttributes(
  r: ProtoReader,
  start: number,
  end: number,
  field: number,
  keys: ByteSink,
  vals: ByteSink,
): number {
  let n = 0;
  r.p = start;
  while (r.p < end) {
    const t = r.varint32(end);
    if (t === field) {
      const e = r.lenEnd(end);
      const s = r.p;
      if (n >= active.limits.maxAttributes) active.drops.attributes++;
      else {
        SCRATCH.keys.len = 0;
        SCRATCH.vals.len = 0;
        if (writeKeyValue(r, s, e, keys, vals, NO_PREFIX, SCRATCH)) n++;
      }
      r.p = e;
    } else r.skip(t & 7, end);
  }
  return n;
}

/** Copies a length-prefixed string (position of its prefix) or writes an empty one. */
function copyStr(out: ByteSink, b: Buffer, at: number, end: number): void {
  if (at < 0) out.u8(EMPTY_STRING);
  else out.copy(b, at, end);
}

/** The context columns and the point's attributes (tag `attrTag`) of one row. */
export function writeContext(
  t: PointTable,
  r: ProtoReader,
  ctx: MetricContext,
  point: { start: number; end: number; attrTag: number },
): void {
  const b = r.b;
  const res = ctx.resource;
  t.resCount += res.count;
  t.resOff.u64(t.resCount, 0);
  t.resKeys.copy(res.keys, 0, res.keys.length);
  t.resVals.copy(res.vals, 0, res.vals.length);
  t.resSchema.copy(ctx.resourceSchema, 0, ctx.resourceSchema.length);
  const sc = ctx.scope;
  t.scopeName.copy(sc.name, 0, sc.name.length);
  t.scopeVersion.copy(sc.version, 0, sc.version.length);
  t.scopeCount += sc.count;
  t.scopeOff.u64(t.scopeCount, 0);
  t.scopeKeys.copy(sc.keys, 0, sc.keys.length);
  t.scopeVals.copy(sc.vals, 0, sc.vals.length);
  t.scopeDropped.u32(sc.dropped);
  t.scopeSchema.copy(sc.schema, 0, sc.schema.length);
  t.service.copy(res.service, 0, res.service.length);
  copyStr(t.name, b, ctx.nameAt, ctx.nameEnd);
  copyStr(t.description, b, ctx.descAt, ctx.descEnd);
  copyStr(t.unit, b, ctx.unitAt, ctx.unitEnd);
  t.attrCount += writeAttributes(r, point.start, point.end, point.attrTag, t.attrKeys, t.attrVals);
  t.attrOff.u64(t.attrCount, 0);
}

const ZERO8 = Buffer.alloc(8);

/** An 8-byte field (time, count, double) copied as is, or zeros when absent. */
export function copy8(out: ByteSink, b: Buffer, at: number): void {
  if (at < 0) out.copy(ZERO8, 0, 8);
  else out.copy(b, at, at + 8);
}

/** A 64-bit time as a double: exact enough to compare with a bound. */
function timeNs(b: Buffer, at: number): number {
  return b.readUInt32LE(at + 4) * 4294967296 + b.readUInt32LE(at);
}

/** Why a point's times cannot be stored ('' when they can): as for spans (span-scan.ts). */
export function timeReason(b: Buffer, start: number, time: number): string {
  if (time >= 0 && timeNs(b, time) >= MAX_TIME_NS)
    return 'time out of range (must be before 2200-01-01T00:00:00Z and below 2^63 ns)';
  if (start >= 0 && timeNs(b, start) >= MAX_TIME_NS)
    return 'start time out of range (must be before 2200-01-01T00:00:00Z and below 2^63 ns)';
  return '';
}

/** An sfixed64 as the nearest double (the exporter stores int points as Float64 too). */
export function int64At(b: Buffer, at: number): number {
  return b.readInt32LE(at + 4) * 4294967296 + b.readUInt32LE(at);
}

const T_EX_TIME = tag(2, WIRE_I64);
const T_EX_DOUBLE = tag(3, WIRE_I64);
const T_EX_SPAN = tag(4, WIRE_LEN);
const T_EX_TRACE = tag(5, WIRE_LEN);
const T_EX_INT = tag(6, WIRE_I64);
const T_EX_ATTR = tag(7, WIRE_LEN);

/** An id as the exporter writes it: lowercase hex, '' when absent, empty or all zero. */
function writeId(out: ByteSink, b: Buffer, at: number, n: number, size: number): void {
  if (at < 0 || n !== size || allZero(b, at, n)) out.u8(EMPTY_STRING);
  else writeHex(out, b, at, n);
}

/** The point's exemplars (tag `exTag` in [start, end)) as one row of the Exemplars.* columns. */
export function writeExemplars(
  t: PointTable,
  r: ProtoReader,
  start: number,
  end: number,
  exTag: number,
): void {
  const b = r.b;
  r.p = start;
  while (r.p < end) {
    const tg = r.varint32(end);
    if (tg !== exTag) {
      r.skip(tg & 7, end);
      continue;
    }
    const e = r.lenEnd(end);
    const s = r.p;
    let time = -1;
    let dbl = -1;
    let int = -1;
    let span = -1;
    let spanLen = 0;
    let trace = -1;
    let traceLen = 0;
    while (r.p < e) {
      const f = r.varint32(e);
      if (f === T_EX_TIME || f === T_EX_DOUBLE || f === T_EX_INT) {
        if (r.p + 8 > e) r.skip(WIRE_I64, e);
        if (f === T_EX_TIME) time = r.p;
        else if (f === T_EX_DOUBLE) dbl = r.p;
        else int = r.p;
        r.p += 8;
      } else if (f === T_EX_SPAN || f === T_EX_TRACE) {
        const fe = r.lenEnd(e);
        if (f === T_EX_SPAN) [span, spanLen] = [r.p, fe - r.p];
        else [trace, traceLen] = [r.p, fe - r.p];
        r.p = fe;
      } else skipChecked(r, f, e, EXEMPLAR);
    }
    t.exAttrCount += writeAttributes(r, s, e, T_EX_ATTR, t.exKeys, t.exVals);
    t.exAttrOff.u64(t.exAttrCount, 0);
    copy8(t.exTime, b, time);
    if (dbl >= 0 || int < 0) copy8(t.exValue, b, dbl);
    else t.exValue.f64(int64At(b, int));
    writeId(t.exSpan, b, span, spanLen, 8);
    writeId(t.exTrace, b, trace, traceLen, 16);
    t.exCount++;
    r.p = e;
  }
  t.exOff.u64(t.exCount, 0);
}
