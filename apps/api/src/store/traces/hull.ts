import type { Store } from '../engine/client';
import { sql } from '../sql/template';
import { inWindow } from './filters';
import { TRACES, TRACE_ID_TS } from './tables';

/**
 * Where every span of the traces with a span starting in [from, to) lies, from the trace-id
 * table: [their first start, their last start + 1 s), epoch ns (the table keeps whole seconds,
 * rounded down). Null when it cannot be known exactly: no trace-id table, a trace missing from
 * it (the view skips empty trace ids), or a time outside DateTime's 1970-2106. Two reads of
 * [from, to) and one of the trace-id table by its key: meant for short ranges, whose calls would
 * otherwise read the whole edge margin on both sides (CallScope.margin).
 */
export async function traceHull(
  store: Store,
  fromNs: bigint,
  toNs: bigint,
): Promise<{ fromNs: bigint; toNs: bigint } | null> {
  if (!store.accelerators.traceIdTs || toNs <= fromNs) return null;
  const rows = await store.query<{ traces: string; found: string; a: string; b: string }>(sql`
    WITH touched AS (SELECT DISTINCT TraceId FROM ${TRACES} WHERE ${inWindow(fromNs, toNs)})
    SELECT toString((SELECT count() FROM touched)) AS traces, toString(count()) AS found,
      toString(toUnixTimestamp(min(s))) AS a, toString(toUnixTimestamp(max(e))) AS b
    FROM (SELECT TraceId, min(Start) AS s, max(End) AS e FROM ${TRACE_ID_TS}
      WHERE TraceId IN (SELECT TraceId FROM touched) GROUP BY TraceId)`);
  const r = rows[0];
  if (!r || r.found === '0' || r.found !== r.traces) return null;
  const a = BigInt(r.a);
  const b = BigInt(r.b) + 1n;
  if (a <= 0n || b >= 4_294_967_295n) return null;
  return { fromNs: a * 1_000_000_000n, toNs: b * 1_000_000_000n };
}
