import { SEND_JITTER_NS } from '@tailscope/analysis';
import { callCtes, type CallScope } from '../sql/calls';
import { inWindow, JOIN_SETTINGS, ns, withCtes, type Cte } from '../sql/ctes';
import { quantileWeight, weightedCount } from '../traces/sampling';
import { join, raw, sql, type Sql } from '../sql/template';
import { TRACES } from '../traces/tables';

/**
 * The structure of repeated calls per request and edge, and the `/api/v1/edges` aggregate, as
 * pure SQL builders on the `calls` CTE (calls-sql.ts); `@tailscope/analysis` structure.ts and
 * edge-summary.ts are the reference they are tested against.
 */

/** Which request edges: first call in [fromNs, toNs); optional caller / callee service. */
export interface EdgeScope extends CallScope {
  parentService?: string | undefined;
  leafService?: string | undefined;
  leafOperation?: string | undefined;
  /**
   * Carry each request's weight (the caller span's adjusted count, calls-sql.ts callerWeight)
   * as `weight`; false or absent: the SQL text is the unweighted one, unchanged.
   */
  weighted?: boolean | undefined;
}

/**
 * Extra per-call fields carried in each request edge's `keptCalls` tuples after
 * (startNs, durationNs): `'timing'` none; else (host, mode, attr0..attrK).
 */
export type CallFields = 'timing' | { readonly attributeKeys: readonly string[] };

const keysOf = (c: CallFields): readonly string[] => (c === 'timing' ? [] : c.attributeKeys);

/**
 * `request_edges`: one row per (request, callee operation) whose first call starts in range:
 * fanoutKey (the request: callerKey), traceId, parentSpanId (the caller span id),
 * parentService, parentOperation, leafService, leafOperation, keptCalls (tuples sorted by
 * (startNs, durationNs, ...)), width (calls), fanoutStartNs, lastEndNs, concurrency (most in
 * flight on half-open intervals: a sweep where ends sort before starts), structure
 * ('single' | 'sequential' | 'parallel' | 'pool', structure.ts), callerDurationNs, wrappedCalls
 * (calls found behind at least one wrapper), skewed ((clientHost, serverHost, skewNs) of the
 * calls whose SERVER answers lay outside them).
 */
function requestEdges(s: EdgeScope, c: CallFields): Sql {
  const fields = raw(
    [
      'startNs',
      'durationNs',
      ...(c === 'timing' ? [] : ['host', 'mode']),
      ...keysOf(c).map((_, i) => `attr${i}`),
    ].join(', '),
  );
  const filters = [
    ...(s.parentService !== undefined ? [sql`callerService = ${s.parentService}`] : []),
    ...(s.leafService !== undefined ? [sql`leafService = ${s.leafService}`] : []),
    ...(s.leafOperation !== undefined ? [sql`leafOperation = ${s.leafOperation}`] : []),
  ];
  const where = filters.length > 0 ? sql`\n  WHERE ${join(filters, ' AND ')}` : raw('');
  return sql`
  SELECT
    callerKey AS fanoutKey, leafService, leafOperation,
    any(traceId) AS traceId, any(callerSpanId) AS parentSpanId,
    any(callerService) AS parentService, any(callerOperation) AS parentOperation,
    any(callerDurationNs) AS callerDurationNs,${s.weighted === true ? raw('\n    any(callerWeight) AS weight,') : raw('')}
    arraySort(groupArray((${fields}))) AS keptCalls,
    toUInt32(countIf(wrappers > 0)) AS wrappedCalls,
    groupArrayIf((clientHost, host, skewNs), skewNs > 0) AS skewed,
    toUInt32(length(keptCalls)) AS width,
    arrayMap(call -> call.1, keptCalls) AS starts,
    arrayMap(call -> call.1 + call.2, keptCalls) AS ends,
    starts[1] AS fanoutStartNs,
    arrayMax(ends) AS lastEndNs,
    toUInt32(greatest(1, arrayMax(arrayCumSum(arrayMap(event -> event.2,
      arraySort(arrayConcat(arrayMap(t -> (t, toInt8(1)), starts), arrayMap(t -> (t, toInt8(-1)), ends)))))))) AS concurrency,
    multiIf(width = 1, 'single', concurrency = 1, 'sequential',
      concurrency = width OR arrayMax(starts) - fanoutStartNs <= ${ns(SEND_JITTER_NS)}, 'parallel', 'pool') AS structure
  FROM calls${where}
  GROUP BY callerKey, leafService, leafOperation
  HAVING fanoutStartNs >= ${ns(s.fromNs)} AND fanoutStartNs < ${ns(s.toNs)}`;
}

/** The calls CTEs plus `request_edges` (columns as requestEdges says). */
export function requestEdgeCtes(s: EdgeScope, c: CallFields): Cte[] {
  return [
    ...callCtes(s, keysOf(c), s.weighted === true),
    { name: 'request_edges', body: requestEdges(s, c) },
  ];
}

/**
 * `edges_in_scope` from live detection: parentService, parentOperation, leafService,
 * leafOperation, width, concurrency, structure, durationsNs, waitsNs (each call's start minus
 * the first start), spanNs (first start to last end), callerDurationNs, wrappedCalls, skewed:
 * the columns the stored rows (edges-stored.ts) hold too.
 */
export const EDGE_COLUMNS =
  'parentService, parentOperation, leafService, leafOperation, width, concurrency, structure, durationsNs, waitsNs, spanNs, callerDurationNs, wrappedCalls, skewed';

/** EDGE_COLUMNS, plus `weight` when weighted (never stored: weighted scopes are live). */
export const edgeColumns = (weighted: boolean | undefined): string =>
  weighted === true ? `${EDGE_COLUMNS}, weight` : EDGE_COLUMNS;

export function liveEdgeCtes(s: EdgeScope): Cte[] {
  return [
    ...requestEdgeCtes(s, 'timing'),
    {
      name: 'live_edges',
      body: raw(`
  SELECT parentService, parentOperation, leafService, leafOperation, width, concurrency, structure,
    arrayMap(call -> call.2, keptCalls) AS durationsNs,
    arrayMap(call -> call.1 - fanoutStartNs, keptCalls) AS waitsNs,
    lastEndNs - fanoutStartNs AS spanNs, callerDurationNs, wrappedCalls, skewed, fanoutStartNs${s.weighted === true ? ', weight' : ''}
  FROM request_edges`),
    },
  ];
}

/**
 * The CTEs ending in `edges_in_scope`: as given (edges-stored.ts `edgesInScope`), or for a
 * scope, live detection alone (the signature these builders had when tagged `edges-ready`).
 */
function inScopeCtes(source: readonly Cte[] | EdgeScope): readonly Cte[] {
  if (Array.isArray(source)) return source as readonly Cte[];
  return [
    ...liveEdgeCtes(source as EdgeScope),
    {
      name: 'edges_in_scope',
      body: raw(`\n  SELECT ${edgeColumns((source as EdgeScope).weighted)} FROM live_edges`),
    },
  ];
}

/**
 * GET /api/v1/edges over `edges_in_scope` (the last of `ctes`): per edge, requests, calls,
 * callsPerRequest (type-7 p50, max), structure counts, concurrency (p50, max), the lower median
 * concurrency of pool requests, call latency, queue wait of pool requests' calls and share of
 * the parent, quantiles type 7 (ms; shares 0..1). Ordered by requests (descending), then
 * names. edge-summary.ts picks the structure.
 */
export function edgesSql(source: readonly Cte[] | EdgeScope, weighted = false): Sql {
  const ctes = inScopeCtes(source);
  if (weighted) return withCtes(ctes, weightedEdgesMain());
  const q = (combinator = ''): Sql =>
    raw(`quantilesExactInclusive${combinator}(0.5, 0.95, 0.99, 0.999)`);
  const main = sql`SELECT parentService, parentOperation, leafService, leafOperation,
  toUInt32(count()) AS requests,
  toUInt32(sum(width)) AS calls,
  toUInt32(sum(wrappedCalls)) AS wrappedCalls,
  quantileExactInclusive(0.5)(width) AS callsP50,
  toUInt32(max(width)) AS callsMax,
  toUInt32(countIf(structure = 'parallel')) AS parallelRequests,
  toUInt32(countIf(structure = 'pool')) AS poolRequests,
  toUInt32(countIf(structure = 'sequential')) AS sequentialRequests,
  toUInt32(countIf(structure = 'single')) AS singleRequests,
  quantileExactInclusive(0.5)(concurrency) AS concurrencyP50,
  toUInt32(max(concurrency)) AS concurrencyMax,
  arraySort(groupArrayIf(concurrency, structure = 'pool')) AS poolConcurrency,
  toUInt32(poolConcurrency[intDiv(length(poolConcurrency) + 1, 2)]) AS poolSize,
  ${q('Array')}(arrayMap(d -> toFloat64(d) / 1e6, durationsNs)) AS callLatency,
  ${q('Array')}(if(structure = 'pool', arrayMap(w -> toFloat64(w) / 1e6, waitsNs), CAST([], 'Array(Float64)'))) AS queueWaitMs,
  ${q('If')}(toFloat64(spanNs) / toFloat64(callerDurationNs), callerDurationNs > 0) AS shareOfParent
FROM edges_in_scope
GROUP BY parentService, parentOperation, leafService, leafOperation
ORDER BY requests DESC, parentService, parentOperation, leafService, leafOperation
SETTINGS ${JOIN_SETTINGS}`;
  return withCtes(ctes, main);
}

/**
 * Integer weights of ClickHouse's weighted quantiles: the request's adjusted count times 1000,
 * rounded (a weight off by at most 0.05% of its value for adjusted counts >= 1).
 */
export const WEIGHT_SCALE = 1000;

/**
 * edgesSql's aggregate over a weighted `edges_in_scope` (a `weight` column: the request's
 * adjusted count): counts are sums of weights, rounded to integers; quantiles are
 * `quantilesExactWeightedInterpolated` with weights scaled by WEIGHT_SCALE (each call of a
 * request weighs the request's weight). The pool size stays the lower median of the stored
 * pool requests.
 */
function weightedEdgesMain(): Sql {
  const w = quantileWeight('weight', WEIGHT_SCALE);
  const q = (combinator = ''): string =>
    `quantilesExactWeightedInterpolated${combinator}(0.5, 0.95, 0.99, 0.999)`;
  const count = (cond: string): string => weightedCount(`sumIf(weight, ${cond})`);
  return raw(`SELECT parentService, parentOperation, leafService, leafOperation,
  ${weightedCount('sum(weight)')} AS requests,
  ${weightedCount('sum(width * weight)')} AS calls,
  ${weightedCount('sum(wrappedCalls * weight)')} AS wrappedCalls,
  quantileExactWeightedInterpolated(0.5)(width, ${w}) AS callsP50,
  toUInt32(max(width)) AS callsMax,
  ${count("structure = 'parallel'")} AS parallelRequests,
  ${count("structure = 'pool'")} AS poolRequests,
  ${count("structure = 'sequential'")} AS sequentialRequests,
  ${count("structure = 'single'")} AS singleRequests,
  quantileExactWeightedInterpolated(0.5)(concurrency, ${w}) AS concurrencyP50,
  toUInt32(max(concurrency)) AS concurrencyMax,
  arraySort(groupArrayIf(concurrency, structure = 'pool')) AS poolConcurrency,
  toUInt32(poolConcurrency[intDiv(length(poolConcurrency) + 1, 2)]) AS poolSize,
  ${q('Array')}(arrayMap(d -> toFloat64(d) / 1e6, durationsNs), arrayMap(d -> ${w}, durationsNs)) AS callLatency,
  ${q('Array')}(if(structure = 'pool', arrayMap(x -> toFloat64(x) / 1e6, waitsNs), CAST([], 'Array(Float64)')), if(structure = 'pool', arrayMap(x -> ${w}, waitsNs), CAST([], 'Array(UInt64)'))) AS queueWaitMs,
  ${q('If')}(toFloat64(spanNs) / toFloat64(callerDurationNs), ${w}, callerDurationNs > 0) AS shareOfParent
FROM edges_in_scope
GROUP BY parentService, parentOperation, leafService, leafOperation
ORDER BY requests DESC, parentService, parentOperation, leafService, leafOperation
SETTINGS join_algorithm = 'parallel_hash'`);
}

/**
 * Calls whose SERVER answers lay outside them, per (clientHost, serverHost), over the requests
 * of `edges_in_scope` (the last of `ctes`).
 */
export function skewSql(source: readonly Cte[] | EdgeScope): Sql {
  return withCtes(
    inScopeCtes(source),
    sql`SELECT pair.1 AS clientHost, pair.2 AS serverHost, toUInt32(count()) AS calls, max(pair.3) / 1e6 AS maxMs
FROM edges_in_scope
ARRAY JOIN skewed AS pair
GROUP BY clientHost, serverHost
ORDER BY clientHost, serverHost
SETTINGS ${JOIN_SETTINGS}`,
  );
}

/** Extra copies of spans in [fromNs, toNs): rows minus distinct (TraceId, SpanId). */
export function duplicatesSql(s: CallScope): Sql {
  return sql`SELECT toUInt64(count() - uniqExact(cityHash64(TraceId, SpanId))) AS duplicates
FROM ${TRACES}
WHERE ${inWindow(s.fromNs, s.toNs)}`;
}
