import type { Store } from '../engine/client';
import { execRowBinary } from '../sql/row-binary';
import { param, sql } from '../sql/template';
import { TRACES } from './tables';
import { rootsWindow } from './filters';

/**
 * The spans the aggregated critical path walks (up to 1,000 traces of a few hundred spans each
 * at 10M stored spans): read as RowBinary rows, not JSON rows. Measured at
 * 10M spans (bench:traces): 201,000 spans as JSONEachRow cost 1.2 s of CPU in the engine's
 * writer and the JSON parse, ~4x the filter itself; in RowBinary the read is the filter's
 * cost plus about a tenth of that.
 */

export interface PathSpanRow {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  service: string;
  operation: string;
  kind: string;
  /** Start, epoch ns. */
  startNs: bigint;
  durationNs: number;
}

/**
 * The spans of the given traces (the minimal columns a critical path needs), in one query, at
 * most `maxSpans` (the caller's bound: a trace with a million spans must not cost a million).
 */
export async function selectPathSpans(
  store: Store,
  roots: readonly { traceId: string; startNs: string; durationNs: string }[],
  maxSpans: number,
): Promise<PathSpanRow[]> {
  if (roots.length === 0) return [];
  const body = await execRowBinary(
    store,
    sql`
    SELECT TraceId, SpanId, ParentSpanId, CAST(ServiceName, 'String'), CAST(SpanName, 'String'),
      CAST(SpanKind, 'String'), toUnixTimestamp64Nano(Timestamp), Duration
    FROM ${TRACES}
    WHERE TraceId IN ${param(
      roots.map((r) => r.traceId),
      'Array(String)',
    )} AND ${rootsWindow(roots)}
    LIMIT ${param(maxSpans, 'UInt64')}`,
  );
  return readPathSpans(body);
}

/**
 * RowBinary rows: each row's fields back to back (strings as LEB128 length + UTF-8 bytes,
 * Int64/UInt64 little-endian), rows until the end of the body.
 */
export function readPathSpans(buf: Buffer): PathSpanRow[] {
  let pos = 0;
  const varint = (): number => {
    let n = 0;
    let shift = 0;
    for (;;) {
      const b = buf[pos++];
      if (b === undefined) throw new Error('RowBinary: truncated varint');
      n += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return n;
      shift += 7;
    }
  };
  const need = (bytes: number): void => {
    if (pos + bytes > buf.length) throw new Error('RowBinary: truncated value');
  };
  // Repeated values (trace ids, services, operations, kinds) decode once: a cache keyed by the
  // bytes as latin1 is cheaper than a UTF-8 decode per span.
  const seen = new Map<string, string>();
  const text = (cached: boolean): string => {
    const len = varint();
    need(len);
    const at = pos;
    pos += len;
    if (!cached) return buf.toString('utf8', at, pos);
    const key = buf.toString('latin1', at, pos);
    let v = seen.get(key);
    if (v === undefined) {
      v = buf.toString('utf8', at, pos);
      seen.set(key, v);
    }
    return v;
  };
  const out: PathSpanRow[] = [];
  while (pos < buf.length) {
    const traceId = text(true);
    const spanId = text(false);
    const parentSpanId = text(false);
    const service = text(true);
    const operation = text(true);
    const kind = text(true);
    need(16);
    const startNs = buf.readBigInt64LE(pos);
    const durationNs = Number(buf.readBigUInt64LE(pos + 8));
    pos += 16;
    out.push({ traceId, spanId, parentSpanId, service, operation, kind, startNs, durationNs });
  }
  return out;
}
