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
 * 2. the spans as RowBinary rows of (trace key, span key, parent key, start, duration,
 *    descriptor key) ordered by trace id, start, span id: the order requestTreesFromSpans
 *    got its objects in, so the trees are the same (apps/api/test/whatif-columns.int.test.ts).
 *    A descriptor (kind, names, host, mode, client attributes: what the calls definition reads)
 *    has a 53-bit key; a few hundred are distinct;
 * 3. the descriptors, from the first span read of each key.
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
  /** `everyDescriptor`: read the descriptors from every span, as when an exemplar is gone (tests). */
  opts: { weights?: boolean; everyDescriptor?: boolean } = {},
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
  const baseNs = s.fromNs - TRACE_SLACK_NS;
  // Ordered by trace id (the order requestTreesFromSpans sorts them in); each row carries its
  // trace's key, which the id query returned with the id, and its descriptor's key.
  const body = await execRowBinary(
    store,
    sql`
    SELECT ${traceKey} AS t,
      toFloat64(bitShiftRight(cityHash64(SpanId), 11)) AS spanKey,
      if(ParentSpanId = '', toFloat64(${ROOT_PARENT_KEY}), toFloat64(bitShiftRight(cityHash64(ParentSpanId), 11))) AS parentKey,
      toFloat64(toUnixTimestamp64Nano(Timestamp) - ${ns(baseNs)}) AS startNs, toFloat64(Duration) AS durationNs,
      descKey
    FROM (${described(s, idsSql)})
    ORDER BY TraceId, Timestamp, SpanId
    LIMIT ${param(limits.maxSpans, 'UInt64')}`,
  );
  const idOf = new Map(idRows.map((r) => [r.key, r.TraceId]));
  const read = readSpanRows(body, idOf, baseNs);
  read.columns.descriptors = await descriptorsOf(
    store,
    s,
    read.exemplars,
    idsSql,
    opts.everyDescriptor === true,
  );
  return {
    columns: read.columns,
    sampled: Number(idRows[0]?.n ?? '0') > idRows.length,
    truncated: body.length / ROW_BYTES >= limits.maxSpans,
    ...(opts.weights === true ? { traceWeights: await traceWeights(store, s, idsSql) } : {}),
  };
}

/**
 * The descriptors of the keys the rows carried, in the order of their ordinals: read from one
 * span of each (its exemplar, a few hundred spans of as many traces), not from every span again
 * (the descriptor expressions read the attribute maps: measured 1.3 s of one engine thread over
 * 1.8M spans). Should an exemplar be gone (a partition dropped between the reads), every span
 * of the requests is read, as before; a key found nowhere keeps descriptor 0 (a span that
 * changed under the read).
 */
async function descriptorsOf(
  store: Store,
  s: RequestTreeScope,
  exemplars: Exemplar[],
  idsSql: Sql,
  everySpan: boolean,
): Promise<SpanDescriptor[]> {
  if (exemplars.length === 0) return [];
  const group = (rows: Sql, where: Sql): Sql => sql`
    SELECT descKey, any(kind) AS kind, any(service) AS service, any(name) AS name, any(host) AS host,
      any(mode) AS mode, any(clientAttrs) AS clientAttrs, any(peerService) AS peerService,
      any(serverAddress) AS serverAddress
    FROM (${rows}) WHERE ${where} GROUP BY descKey`;
  const traces = param([...new Set(exemplars.map((e) => e.traceId))], 'Array(String)');
  const spans = param(
    exemplars.map((e) => e.spanKey),
    'Array(Float64)',
  );
  let rows: DescriptorRow[] = everySpan
    ? []
    : await store.query<DescriptorRow>(
        group(
          described(s, sql`SELECT arrayJoin(${traces})`),
          sql`has(${spans}, toFloat64(bitShiftRight(cityHash64(SpanId), 11)))`,
        ),
      );
  let byKey = new Map(rows.map((r) => [r.descKey, r]));
  if (exemplars.some((e) => !byKey.has(e.descKey))) {
    rows = await store.query<DescriptorRow>(group(described(s, idsSql), raw('1')));
    byKey = new Map(rows.map((r) => [r.descKey, r]));
  }
  const first = rows[0];
  return exemplars.map((e) => {
    const r = byKey.get(e.descKey) ?? first;
    if (!r) throw new Error('request read: no span descriptor found');
    return {
      kind: r.kind,
      service: r.service,
      name: r.name,
      host: r.host,
      mode: r.mode,
      clientAttrs: Boolean(Number(r.clientAttrs)),
      peerService: r.peerService,
      serverAddress: r.serverAddress,
    };
  });
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

/** Bytes of one RowBinary row: six Float64 (see loadRequestColumns). */
const ROW_BYTES = 6 * 8;

/** A trace id's 53-bit key (exact as a Float64). */
const traceKey = raw('toFloat64(bitShiftRight(cityHash64(TraceId), 11))');

/** The first span read of one descriptor key: where its descriptor is read from. */
export interface Exemplar {
  descKey: number;
  traceId: string;
  spanKey: number;
}

/**
 * The RowBinary rows as columns, each span's descriptor as the ordinal of its key in order of
 * first appearance (`exemplars`, one per key; the caller fills `descriptors`). Traces without
 * a span read (cut by the span limit) are left out. O(spans), on a Float64Array over the body.
 */
export function readSpanRows(
  buf: Buffer,
  traceIds: ReadonlyMap<number, string>,
  baseNs: bigint,
): { columns: SpanColumns; exemplars: Exemplar[] } {
  if (buf.length % ROW_BYTES !== 0) throw new Error('RowBinary: truncated span row');
  const n = buf.length / ROW_BYTES;
  // Float64 reads need an 8-byte aligned view: a large Buffer is, a pooled small one may not be.
  const f =
    buf.byteOffset % 8 === 0
      ? new Float64Array(buf.buffer, buf.byteOffset, n * 6)
      : new Float64Array(Uint8Array.from(buf).buffer);
  const cols = spanColumnsFor(n, baseNs, []);
  const ordinal = new Map<number, number>();
  const exemplars: Exemplar[] = [];
  const offsets: number[] = [];
  let last = -1;
  let trace: string | undefined;
  let i = 0;
  for (let p = 0; p < n * 6; p += 6) {
    const t = f[p] as number;
    if (t !== last) {
      // A trace the id query did not return (spans arriving between the two reads of a live
      // range changed the sample): left out.
      trace = traceIds.get(t);
      if (trace !== undefined) {
        cols.traceIds.push(trace);
        offsets.push(i);
      }
      last = t;
    }
    if (trace === undefined) continue;
    const spanKey = f[p + 1] as number;
    const descKey = f[p + 5] as number;
    let d = ordinal.get(descKey);
    if (d === undefined) {
      d = exemplars.length;
      ordinal.set(descKey, d);
      exemplars.push({ descKey, traceId: trace, spanKey });
    }
    cols.spanKey[i] = spanKey;
    cols.parentKey[i] = f[p + 2] as number;
    cols.startNs[i] = f[p + 3] as number;
    cols.durationNs[i] = f[p + 4] as number;
    cols.desc[i] = d;
    i++;
  }
  offsets.push(i);
  cols.traceOffsets = Uint32Array.from(offsets);
  if (i === n) return { columns: cols, exemplars };
  return {
    columns: {
      ...cols,
      spanKey: cols.spanKey.slice(0, i),
      parentKey: cols.parentKey.slice(0, i),
      startNs: cols.startNs.slice(0, i),
      durationNs: cols.durationNs.slice(0, i),
      desc: cols.desc.slice(0, i),
    },
    exemplars,
  };
}
