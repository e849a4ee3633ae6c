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

/**
 * Pass 1, then what every kind writes first: context, attributes (field `attrNo`), start and
 * time, and (`counted`) Count and Sum (fields 4 and 5 of the histogram and summary points).
 * Returns the rejection reason, '' when the row was begun. Positions stay in `at` for the rest.
 */
function begin(
  t: PointTable,
  r: ProtoReader,
  ctx: MetricContext,
  range: { start: number; end: number },
  shape: MessageShape,
  fields: { flags: number; attr: number; counted: boolean },
): string {
  scan(r, range.start, range.end, shape, fields.flags);
  const reason = timeReason(r.b, pos(2), pos(3));
  if (reason !== '') return reason;
  writeContext(t, r, ctx, { ...range, attrTag: tag(fields.attr, WIRE_LEN) });
  copy8(t.start, r.b, pos(2));
  copy8(t.time, r.b, pos(3));
  if (fields.counted) {
    copy8(t.count, r.b, pos(4));
    copy8(t.sum, r.b, pos(5));
  }
  return '';
}

/** What both histogram kinds write last: exemplars, flags, Min, Max and temporality. */
function finishHistogram(
  t: PointTable,
  r: ProtoReader,
  range: { start: number; end: number },
  no: { exemplars: number; min: number; max: number },
  data: MetricData,
): void {
  writeExemplars(t, r, range.start, range.end, tag(no.exemplars, WIRE_LEN));
  t.flags.u32(flags);
  copy8(t.min, r.b, pos(no.min));
  copy8(t.max, r.b, pos(no.max));
  t.temporality.u32(data.temporality);
  t.rows++;
}

export function writeNumberPoint(
  t: PointTable,
  r: ProtoReader,
  ctx: MetricContext,
  start: number,
  end: number,
  data: MetricData,
): string {
  const range = { start, end };
  const reason = begin(t, r, ctx, range, NUMBER_POINT, { flags: 8, attr: 7, counted: false });
  if (reason !== '') return reason;
  const [dbl, int] = [pos(4), pos(6)];
  if (dbl >= 0 || int < 0) copy8(t.value, r.b, dbl);
  else t.value.f64(int64At(r.b, int));
  t.flags.u32(flags);
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
  const range = { start, end };
  const reason = begin(t, r, ctx, range, HISTOGRAM_POINT, { flags: 10, attr: 9, counted: true });
  if (reason !== '') return reason;
  t.aCount += writeFixedArray(r, start, end, 6, t.a);
  t.aOff.u64(t.aCount, 0);
  t.bCount += writeFixedArray(r, start, end, 7, t.b);
  t.bOff.u64(t.bCount, 0);
  finishHistogram(t, r, range, { exemplars: 8, min: 11, max: 12 }, data);
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
  const range = { start, end };
  const shape = EXP_HISTOGRAM_POINT;
  const reason = begin(t, r, ctx, range, shape, { flags: 10, attr: 1, counted: true });
  if (reason !== '') return reason;
  let scale = 0;
  r.p = start;
  while (r.p < end) {
    const tg = r.varint32(end);
    if (tg === tag(6, WIRE_VARINT)) scale = zigzag(r.varint32(end));
    else r.skip(tg & 7, end);
  }
  t.scale.u32(scale);
  copy8(t.zeroCount, r.b, pos(7));
  const [posOffset, posN] = bucketsOf(r, start, end, 8, t.a);
  t.posOffset.u32(posOffset);
  t.aCount += posN;
  t.aOff.u64(t.aCount, 0);
  const [negOffset, negN] = bucketsOf(r, start, end, 9, t.b);
  t.negOffset.u32(negOffset);
  t.bCount += negN;
  t.bOff.u64(t.bCount, 0);
  finishHistogram(t, r, range, { exemplars: 11, min: 12, max: 13 }, data);
  return '';
}

export function writeSummaryPoint(
  t: PointTable,
  r: ProtoReader,
  ctx: MetricContext,
  start: number,
  end: number,
): string {
  const range = { start, end };
  const reason = begin(t, r, ctx, range, SUMMARY_POINT, { flags: 8, attr: 7, counted: true });
  if (reason !== '') return reason;
  const fl = flags;
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
