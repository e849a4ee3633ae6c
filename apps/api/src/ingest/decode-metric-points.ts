import type { ByteSink } from './byte-sink';
import type { PointTable } from './metric-columns';
import {
  BUCKETS,
  EXP_HISTOGRAM_POINT,
  HISTOGRAM_POINT,
  NUMBER_POINT,
  SUMMARY_POINT,
  VALUE_AT_QUANTILE,
} from './metrics-shapes';
import { skipChecked, type MessageShape } from './limits';
import { DecodeError, WIRE_I64, WIRE_LEN, WIRE_VARINT, type ProtoReader } from './proto-reader';
import { tag } from './proto-helpers';
import {
  copy8,
  int64At,
  timeReason,
  writeContext,
  writeExemplars,
  type MetricContext,
} from './metric-row';

/**
 * One data point of each kind -> one row of its table. Pass 1 finds the singular fields and
 * checks the times without writing; a point that fails is rejected alone (its reason returned)
 * and never touches the columns. Pass 2 writes the row.
 */

/** The metric's own fields that every point of it shares. */
export interface MetricData {
  temporality: number;
  monotonic: boolean;
}

/** Positions (of 8-byte values) by field number, -1 when absent; reused across points. */
const at = new Int32Array(16);
let flags = 0;

/** Pass 1: the I64 fields' positions and the flags; repeated and LEN fields are skipped. */
function scan(r: ProtoReader, start: number, end: number, shape: MessageShape, flagsNo: number) {
  at.fill(-1);
  flags = 0;
  r.p = start;
  while (r.p < end) {
    const t = r.varint32(end);
    const no = t >>> 3;
    const wire = t & 7;
    const known = shape.fields[no];
    if (wire === WIRE_I64 && known?.[1] === WIRE_I64 && no < 16) {
      if (r.p + 8 > end) r.skip(WIRE_I64, end);
      at[no] = r.p;
      r.p += 8;
    } else if (no === flagsNo && wire === WIRE_VARINT) {
      flags = r.varint32(end);
    } else if (wire === WIRE_I64 && known?.[1] === WIRE_LEN) {
      // An unpacked repeated fixed64/double: read in pass 2.
      r.skip(wire, end);
    } else skipChecked(r, t, end, shape);
  }
}

const pos = (no: number) => at[no] ?? -1;

export function writeNumberPoint(
  t: PointTable,
  r: ProtoReader,
  ctx: MetricContext,
  start: number,
  end: number,
  data: MetricData,
): string {
  scan(r, start, end, NUMBER_POINT, 8);
  const reason = timeReason(r.b, pos(2), pos(3));
  if (reason !== '') return reason;
  const [s, tm, dbl, int, fl] = [pos(2), pos(3), pos(4), pos(6), flags];
  writeContext(t, r, ctx, { start, end, attrTag: tag(7, WIRE_LEN) });
  copy8(t.start, r.b, s);
  copy8(t.time, r.b, tm);
  if (dbl >= 0 || int < 0) copy8(t.value, r.b, dbl);
  else t.value.f64(int64At(r.b, int));
  t.flags.u32(fl);
  writeExemplars(t, r, start, end, tag(5, WIRE_LEN));
  if (t.kind === 'sum') {
    t.temporality.u32(data.temporality);
    t.monotonic.u8(data.monotonic ? 1 : 0);
  }
  t.rows++;
  return '';
}

/** A repeated fixed64/double field (packed or not) as one Array row: offsets, then values. */
function writeFixedArray(
  r: ProtoReader,
  start: number,
  end: number,
  field: number,
  out: ByteSink,
): number {
  let n = 0;
  r.p = start;
  while (r.p < end) {
    const t = r.varint32(end);
    if (t === tag(field, WIRE_LEN)) {
      const e = r.lenEnd(end);
      if ((e - r.p) % 8 !== 0)
        throw new DecodeError(`packed field ${field} is not a whole number of 8-byte values`);
      out.copy(r.b, r.p, e);
      n += (e - r.p) / 8;
      r.p = e;
    } else if (t === tag(field, WIRE_I64)) {
      if (r.p + 8 > end) r.skip(WIRE_I64, end);
      out.copy(r.b, r.p, r.p + 8);
      n++;
      r.p += 8;
    } else r.skip(t & 7, end);
  }
  return n;
}

export function writeHistogramPoint(
  t: PointTable,
  r: ProtoReader,
  ctx: MetricContext,
  start: number,
  end: number,
  data: MetricData,
): string {
  scan(r, start, end, HISTOGRAM_POINT, 10);
  const reason = timeReason(r.b, pos(2), pos(3));
  if (reason !== '') return reason;
  const [s, tm, count, sum, min, max, fl] = [
    pos(2),
    pos(3),
    pos(4),
    pos(5),
    pos(11),
    pos(12),
    flags,
  ];
  writeContext(t, r, ctx, { start, end, attrTag: tag(9, WIRE_LEN) });
  copy8(t.start, r.b, s);
  copy8(t.time, r.b, tm);
  copy8(t.count, r.b, count);
  copy8(t.sum, r.b, sum);
  t.aCount += writeFixedArray(r, start, end, 6, t.a);
  t.aOff.u64(t.aCount, 0);
  t.bCount += writeFixedArray(r, start, end, 7, t.b);
  t.bOff.u64(t.bCount, 0);
  writeExemplars(t, r, start, end, tag(8, WIRE_LEN));
  t.flags.u32(fl);
  copy8(t.min, r.b, min);
  copy8(t.max, r.b, max);
  t.temporality.u32(data.temporality);
  t.rows++;
  return '';
}

const zigzag = (n: number) => (n >>> 1) ^ -(n & 1);

/** Buckets { offset, bucket_counts (packed varints) } -> its offset; counts appended to `out`. */
function writeBuckets(r: ProtoReader, start: number, end: number, out: ByteSink): [number, number] {
  let offset = 0;
  let n = 0;
  r.p = start;
  while (r.p < end) {
    const t = r.varint32(end);
    if (t === tag(1, WIRE_VARINT)) offset = zigzag(r.varint32(end));
    else if (t === tag(2, WIRE_LEN)) {
      const e = r.lenEnd(end);
      while (r.p < e) {
        r.varint64(e);
        out.u64(r.lo, r.hi);
        n++;
      }
    } else if (t === tag(2, WIRE_VARINT)) {
      r.varint64(end);
      out.u64(r.lo, r.hi);
      n++;
    } else skipChecked(r, t, end, BUCKETS);
  }
  return [offset, n];
}

/** The Buckets message (field `no`) of [start, end): offset and count written. */
function bucketsOf(r: ProtoReader, start: number, end: number, no: number, out: ByteSink) {
  let result: [number, number] = [0, 0];
  r.p = start;
  while (r.p < end) {
    const t = r.varint32(end);
    if (t === tag(no, WIRE_LEN)) {
      const e = r.lenEnd(end);
      const [offset, n] = writeBuckets(r, r.p, e, out);
      result = [offset, result[1] + n];
      r.p = e;
    } else r.skip(t & 7, end);
  }
  return result;
}

export function writeExpHistogramPoint(
  t: PointTable,
  r: ProtoReader,
  ctx: MetricContext,
  start: number,
  end: number,
  data: MetricData,
): string {
  scan(r, start, end, EXP_HISTOGRAM_POINT, 10);
  const reason = timeReason(r.b, pos(2), pos(3));
  if (reason !== '') return reason;
  const [s, tm, count, sum, zero, min, max, fl] = [
    pos(2),
    pos(3),
    pos(4),
    pos(5),
    pos(7),
    pos(12),
    pos(13),
    flags,
  ];
  let scale = 0;
  r.p = start;
  while (r.p < end) {
    const tg = r.varint32(end);
    if (tg === tag(6, WIRE_VARINT)) scale = zigzag(r.varint32(end));
    else r.skip(tg & 7, end);
  }
  writeContext(t, r, ctx, { start, end, attrTag: tag(1, WIRE_LEN) });
  copy8(t.start, r.b, s);
  copy8(t.time, r.b, tm);
  copy8(t.count, r.b, count);
  copy8(t.sum, r.b, sum);
  t.scale.u32(scale);
  copy8(t.zeroCount, r.b, zero);
  const [posOffset, posN] = bucketsOf(r, start, end, 8, t.a);
  t.posOffset.u32(posOffset);
  t.aCount += posN;
  t.aOff.u64(t.aCount, 0);
  const [negOffset, negN] = bucketsOf(r, start, end, 9, t.b);
  t.negOffset.u32(negOffset);
  t.bCount += negN;
  t.bOff.u64(t.bCount, 0);
  writeExemplars(t, r, start, end, tag(11, WIRE_LEN));
  t.flags.u32(fl);
  copy8(t.min, r.b, min);
  copy8(t.max, r.b, max);
  t.temporality.u32(data.temporality);
  t.rows++;
  return '';
}

export function writeSummaryPoint(
  t: PointTable,
  r: ProtoReader,
  ctx: MetricContext,
  start: number,
  end: number,
): string {
  scan(r, start, end, SUMMARY_POINT, 8);
  const reason = timeReason(r.b, pos(2), pos(3));
  if (reason !== '') return reason;
  const [s, tm, count, sum, fl] = [pos(2), pos(3), pos(4), pos(5), flags];
  writeContext(t, r, ctx, { start, end, attrTag: tag(7, WIRE_LEN) });
  copy8(t.start, r.b, s);
  copy8(t.time, r.b, tm);
  copy8(t.count, r.b, count);
  copy8(t.sum, r.b, sum);
  r.p = start;
  while (r.p < end) {
    const tg = r.varint32(end);
    if (tg !== tag(6, WIRE_LEN)) {
      r.skip(tg & 7, end);
      continue;
    }
    const e = r.lenEnd(end);
    let q = -1;
    let v = -1;
    while (r.p < e) {
      const f = r.varint32(e);
      if ((f === tag(1, WIRE_I64) || f === tag(2, WIRE_I64)) && r.p + 8 <= e) {
        if (f === tag(1, WIRE_I64)) q = r.p;
        else v = r.p;
        r.p += 8;
      } else skipChecked(r, f, e, VALUE_AT_QUANTILE);
    }
    copy8(t.a, r.b, q);
    copy8(t.b, r.b, v);
    t.aCount++;
    r.p = e;
  }
  t.aOff.u64(t.aCount, 0);
  t.flags.u32(fl);
  t.rows++;
  return '';
}
