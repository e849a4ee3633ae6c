import {
  PEER_SERVICE_KEY,
  ROOT_PARENT_KEY,
  SERVER_ADDRESS_KEY,
  SHARING_MODE_KEY,
  SPAN_KIND_CODE as K,
  spanColumnsFor,
  type SpanColumns,
  type SpanDescriptor,
} from '@tailscope/analysis';
import type { Store } from '../engine/client';
import { hostOf, inWindow, ns } from '../sql/ctes';
import { clientAttributes, spanKindSql } from '../sql/calls';
import { execRowBinary } from '../sql/row-binary';
import { param, raw, sql, type Sql } from '../sql/template';
import { adjustedCountSql } from '../traces/sampling';
import { TRACES } from '../traces/tables';
import { TRACE_SLACK_NS, type RequestTreeScope } from './trees';

/**
 * The whole requests of the what-if (issue #14) as columns (SpanColumns), for 100,000 requests
 * of a few million spans: span objects with attribute maps cost ~1 kB each on the event loop
 * (3M spans: 3 GB), these columns 44 bytes. Three bounded queries:
 *
 * 1. the trace ids holding the leaf operation in the range (a deterministic uniform sample by
 *    cityHash64 beyond `maxTraces`);
 * 2. the distinct span descriptors of those traces (kind, names, host, mode, client attributes:
 *    what the calls definition reads; a few hundred), each with a 53-bit key;
 * 3. the spans as RowBinary rows of (trace key, span key, parent key, start, duration,
 *    descriptor ordinal) ordered by trace id, start, span id: the order requestTreesFromSpans
 *    got its objects in, so the trees are the same (apps/api/test/whatif-columns.int.test.ts).
 *
 * Span ids become 53-bit hashes (exact as float64): two spans of one trace sharing one is a
 * 1 in 10^13 event for a 30-span trace. Times are ns from the range's start minus the trace
 * slack, exact below 2^53 ns (104 days).
 */

/** Each span's descriptor fields, as spanDescriptor computes them from a span object. */
function described(s: RequestTreeScope, ids: Sql): Sql {
  return sql`
  SELECT TraceId, SpanId, ParentSpanId, Timestamp, Duration,
    ${spanKindSql()} AS kind,
    kind = ${K.internal} AND (${clientAttributes()}) AS clientAttrs,
    kind IN (${K.client}, ${K.producer}) OR clientAttrs AS callSpan,
    CAST(ServiceName, 'String') AS service, CAST(SpanName, 'String') AS name,
    ${hostOf('ResourceAttributes')} AS host,
    ResourceAttributes[${SHARING_MODE_KEY}] AS mode,
    if(callSpan, SpanAttributes[${PEER_SERVICE_KEY}], '') AS peerService,
    if(callSpan, SpanAttributes[${SERVER_ADDRESS_KEY}], '') AS serverAddress,
    toFloat64(bitShiftRight(cityHash64(kind, service, name, host, mode, clientAttrs, peerService, serverAddress), 11)) AS descKey
  FROM ${TRACES}
  WHERE ${inWindow(s.fromNs - TRACE_SLACK_NS, s.toNs + TRACE_SLACK_NS)} AND TraceId IN (${ids})`;
}

interface DescriptorRow {
  descKey: number;
  kind: number;
  service: string;
  name: string;
  host: string;
  mode: string;
  clientAttrs: number | boolean;
  peerService: string;
  serverAddress: string;
}

export interface LoadedRequestColumns {
  columns: SpanColumns;
  /** More requests matched than `maxTraces`: a uniform sample was kept. */
  sampled: boolean;
  /** The span limit cut the read: the last request may be partial. */
  truncated: boolean;
  traceWeights?: Record<string, number>;
}

/**
 * The whole requests (traces) holding a span of the leaf operation in the range, as span
 * columns: at most `maxTraces` traces and `maxSpans` spans.
 */
export async function loadRequestColumns(
  store: Store,
  s: RequestTreeScope,
  limits: { maxTraces: number; maxSpans: number },
  opts: { weights?: boolean } = {},
): Promise<LoadedRequestColumns | null> {
  // The ids go back into the next queries as a subquery: a 100,000-element Array(String)
  // parameter took the engine over 30 s to parse (measured), the subquery 0.2 s.
  const idsSql = sql`
    SELECT TraceId FROM (
      SELECT DISTINCT TraceId FROM ${TRACES}
      WHERE ${inWindow(s.fromNs, s.toNs)}
        AND ServiceName = ${s.leafService} AND SpanName = ${s.leafOperation})
    ORDER BY cityHash64(TraceId), TraceId
    LIMIT ${param(limits.maxTraces, 'UInt64')}`;
  const idRows = await store.query<{ TraceId: string; key: number; n: string }>(sql`
    SELECT TraceId, ${traceKey} AS key, toString(count() OVER ()) AS n FROM (
      SELECT DISTINCT TraceId FROM ${TRACES}
      WHERE ${inWindow(s.fromNs, s.toNs)}
        AND ServiceName = ${s.leafService} AND SpanName = ${s.leafOperation})
    ORDER BY cityHash64(TraceId), TraceId
    LIMIT ${param(limits.maxTraces, 'UInt64')}`);
  if (idRows.length === 0) return null;
  const descRows = await store.query<DescriptorRow>(sql`
    SELECT descKey, any(kind) AS kind, any(service) AS service, any(name) AS name, any(host) AS host,
      any(mode) AS mode, any(clientAttrs) AS clientAttrs, any(peerService) AS peerService,
      any(serverAddress) AS serverAddress
    FROM (${described(s, idsSql)}) GROUP BY descKey`);
  const descriptors: SpanDescriptor[] = descRows.map((r) => ({
    kind: r.kind,
    service: r.service,
    name: r.name,
    host: r.host,
    mode: r.mode,
    clientAttrs: Boolean(Number(r.clientAttrs)),
    peerService: r.peerService,
    serverAddress: r.serverAddress,
  }));
  const baseNs = s.fromNs - TRACE_SLACK_NS;
  const descKeys = param(
    descRows.map((r) => r.descKey),
    'Array(Float64)',
  );
  const descOrdinals = param(
    descRows.map((_, i) => i),
    'Array(UInt32)',
  );
  // Ordered by trace id (the order requestTreesFromSpans sorts them in); each row carries its
  // trace's key, which the id query returned with the id.
  const body = await execRowBinary(
    store,
    sql`
    SELECT ${traceKey} AS t,
      toFloat64(bitShiftRight(cityHash64(SpanId), 11)) AS spanKey,
      if(ParentSpanId = '', toFloat64(${ROOT_PARENT_KEY}), toFloat64(bitShiftRight(cityHash64(ParentSpanId), 11))) AS parentKey,
      toFloat64(toUnixTimestamp64Nano(Timestamp) - ${ns(baseNs)}) AS startNs, toFloat64(Duration) AS durationNs,
      transform(descKey, ${descKeys}, ${descOrdinals}, toUInt32(0)) AS desc
    FROM (${described(s, idsSql)})
    ORDER BY TraceId, Timestamp, SpanId
    LIMIT ${param(limits.maxSpans, 'UInt64')}`,
  );
  const idOf = new Map(idRows.map((r) => [r.key, r.TraceId]));
  const columns = readSpanRows(body, idOf, descriptors, baseNs);
  return {
    columns,
    sampled: Number(idRows[0]?.n ?? '0') > idRows.length,
    truncated: body.length / ROW_BYTES >= limits.maxSpans,
    ...(opts.weights === true ? { traceWeights: await traceWeights(store, s, idsSql) } : {}),
  };
}

/**
 * Each trace's adjusted count (docs/analysis.md "Sampling"), as request-trees.ts traceWeights
 * but for the traces of a subquery.
 */
async function traceWeights(
  store: Store,
  s: RequestTreeScope,
  ids: Sql,
): Promise<Record<string, number>> {
  const rows = await store.query<{ TraceId: string; weight: number | string }>(sql`
    SELECT TraceId, if(countIf(ParentSpanId = '') > 0, anyIf(w, ParentSpanId = ''), any(w)) AS weight
    FROM (SELECT TraceId, ParentSpanId, ${adjustedCountSql()} AS w FROM ${TRACES}
      WHERE ${inWindow(s.fromNs - TRACE_SLACK_NS, s.toNs + TRACE_SLACK_NS)} AND TraceState != ''
        AND TraceId IN (${ids}))
    GROUP BY TraceId`);
  return Object.fromEntries(rows.map((r) => [r.TraceId, Number(r.weight)]));
}

/** Bytes of one RowBinary row: five Float64 (see loadRequestColumns), a UInt32. */
const ROW_BYTES = 5 * 8 + 4;

/** A trace id's 53-bit key (exact as a Float64). */
const traceKey = raw('toFloat64(bitShiftRight(cityHash64(TraceId), 11))');

/**
 * The RowBinary rows as columns; traces without a span read (cut by the span limit) are left
 * out. O(spans).
 */
export function readSpanRows(
  buf: Buffer,
  traceIds: ReadonlyMap<number, string>,
  descriptors: SpanDescriptor[],
  baseNs: bigint,
): SpanColumns {
  if (buf.length % ROW_BYTES !== 0) throw new Error('RowBinary: truncated span row');
  const n = buf.length / ROW_BYTES;
  const cols = spanColumnsFor(n, baseNs, descriptors);
  const offsets: number[] = [];
  let last = -1;
  let known = false;
  let i = 0;
  for (let p = 0; p < buf.length; p += ROW_BYTES) {
    const t = buf.readDoubleLE(p);
    if (t !== last) {
      // A trace the id query did not return (spans arriving between the two reads of a live
      // range changed the sample): left out.
      const id = traceIds.get(t);
      known = id !== undefined;
      if (id !== undefined) {
        cols.traceIds.push(id);
        offsets.push(i);
      }
      last = t;
    }
    if (!known) continue;
    cols.spanKey[i] = buf.readDoubleLE(p + 8);
    cols.parentKey[i] = buf.readDoubleLE(p + 16);
    cols.startNs[i] = buf.readDoubleLE(p + 24);
    cols.durationNs[i] = buf.readDoubleLE(p + 32);
    cols.desc[i] = buf.readUInt32LE(p + 40);
    i++;
  }
  offsets.push(i);
  cols.traceOffsets = Uint32Array.from(offsets);
  if (i === n) return cols;
  return {
    ...cols,
    spanKey: cols.spanKey.slice(0, i),
    parentKey: cols.parentKey.slice(0, i),
    startNs: cols.startNs.slice(0, i),
    durationNs: cols.durationNs.slice(0, i),
    desc: cols.desc.slice(0, i),
  };
}
