import { UNKNOWN_MODE } from '@tailscope/analysis';
import {
  JOIN_SETTINGS,
  liveFanoutCtes,
  liveNamedFanoutCtes,
  withCtes,
  type Cte,
  type FanoutScope,
} from './sql';
import {
  storedFanoutArrays,
  storedNamedFanouts,
  storedPlacedFanouts,
  type Coverage,
} from './stored';
import { quantileWeight, weightedCount } from '../traces/sampling';
import { param, raw, sql, type Sql } from '../sql/template';

/**
 * The fan-out queries, one builder per use, each pure and synchronous: scope and coverage in,
 * SQL out. Every use reads one CTE, `fanouts_in_scope`, with the columns that use needs: the
 * stored rows of the covered chunks (fanouts-stored.ts), then live detection from where they
 * stop (fanouts-sql.ts), as one UNION ALL. __snapshots__/ holds the SQL each builds.
 */

/**
 * `fanouts_in_scope`: `columns` of the stored rows (before cov.splitNs), then of the live rows
 * (from it on) that the last of `live`'s CTEs holds, as one UNION ALL; only one side when the
 * other has nothing to add.
 */
function inScope(
  scope: FanoutScope,
  cov: Coverage,
  stored: (scope: FanoutScope, cov: Coverage) => Sql,
  live: (scope: FanoutScope) => Cte[],
  columns: string,
): Cte[] {
  const cols = raw(columns);
  const storedCte: Cte = { name: 'stored_fanouts', body: stored(scope, cov) };
  const fromStored = sql`\n  SELECT ${cols} FROM stored_fanouts`;
  const inScopeCte = (body: Sql): Cte => ({ name: 'fanouts_in_scope', body });
  if (cov.chunks.length > 0 && cov.splitNs >= scope.toNs)
    return [storedCte, inScopeCte(fromStored)];
  const liveCtes = live({ ...scope, fromNs: cov.splitNs });
  const fromLive = sql`\n  SELECT ${cols} FROM ${raw(liveCtes[liveCtes.length - 1]?.name ?? '')}`;
  if (cov.chunks.length === 0) return [...liveCtes, inScopeCte(fromLive)];
  return [storedCte, ...liveCtes, inScopeCte(sql`${fromStored}\n  UNION ALL${fromLive}`)];
}

/** Fan-outs with parent names and (startNs, durationNs) calls: the operations table. */
export function namedFanouts(scope: FanoutScope, cov: Coverage): Cte[] {
  return inScope(
    scope,
    cov,
    storedNamedFanouts,
    (s) => liveNamedFanoutCtes(s, 'timing'),
    'leafService, leafOperation, parentService, parentOperation, traceId, parentSpanId, width, fanoutStartNs, keptCalls, concurrency, structure',
  );
}

/**
 * Fan-outs with (startNs, durationNs, host, mode) calls: host windows. `ids`: also traceId and
 * parentSpanId (to join the sampling weights).
 */
function placedFanouts(scope: FanoutScope, cov: Coverage, ids = false): Cte[] {
  return inScope(
    scope,
    cov,
    (sc, cv) => storedPlacedFanouts(sc, cv, ids),
    (s) => liveFanoutCtes(s, { attributeKeys: [] }),
    ids ? 'traceId, parentSpanId, fanoutStartNs, keptCalls' : 'fanoutStartNs, keptCalls',
  );
}

/**
 * Fan-outs with calls as column arrays: fanoutKey, traceId, parentSpanId, width, fanoutStartNs,
 * callStartNs, callDurationNs, callHosts, callModes, callAttr0..K. Stored rows carry no
 * attributes: with attribute keys, `cov` must be uncovered (all live).
 */
export function fanoutArrays(
  scope: FanoutScope,
  cov: Coverage,
  attributeKeys: readonly string[],
): Cte[] {
  if (attributeKeys.length > 0 && cov.chunks.length > 0)
    throw new Error('stored fan-outs carry no attributes: detect live when asking for them');
  const attrs = attributeKeys.map((_, i) => `callAttr${i}`);
  const fromKept = attributeKeys
    .map((_, i) => `,\n    arrayMap(call -> call.${i + 5}, keptCalls) AS callAttr${i}`)
    .join('');
  return inScope(
    scope,
    cov,
    storedFanoutArrays,
    (s) => [
      ...liveFanoutCtes(s, { attributeKeys }),
      {
        name: 'live_fanout_arrays',
        body: raw(`
  SELECT fanoutKey, traceId, parentSpanId, width, fanoutStartNs,
    arrayMap(call -> call.1, keptCalls) AS callStartNs,
    arrayMap(call -> call.2, keptCalls) AS callDurationNs,
    arrayMap(call -> call.3, keptCalls) AS callHosts,
    arrayMap(call -> call.4, keptCalls) AS callModes${fromKept}
  FROM live_fanouts`),
      },
    ],
    [
      'fanoutKey, traceId, parentSpanId, width, fanoutStartNs, callStartNs, callDurationNs, callHosts, callModes',
      ...attrs,
    ].join(', '),
  );
}

/**
 * Every fan-out operation in scope with Table 1 quantiles (type 7, ClickHouse
 * quantileExactInclusive), the single-call p99 (or `thresholdMs`), F(t) counts and the width
 * histogram with tail counts, ordered by requests (descending). `seed` picks the random leaf
 * (murmurHash3_32 of `${seed}:${traceId}:${parentSpanId}`, as `fanoutPickHashes`). Also
 * structure counts, concurrency, pool size (lower median concurrency of pool fan-outs), queue
 * wait of pool fan-outs' calls, and the tail fan-outs whose straggler (the first call with the
 * latest finishing time) waited longer than it ran (`queuedTailFanouts`; analysis queueing.ts).
 */
export function fanoutOperationsSql(
  scope: FanoutScope,
  cov: Coverage,
  opts: { thresholdMs?: number | undefined; seed: number },
): Sql {
  const parentFilter =
    scope.parentService !== undefined
      ? sql`\n  WHERE parentService = ${scope.parentService}`
      : raw('');
  const threshold =
    opts.thresholdMs !== undefined ? sql`${param(opts.thresholdMs, 'Float64')}` : raw('callP99');
  const perFanout = sql`
  SELECT parentService, parentOperation, leafService, leafOperation, width,
    arraySort(arrayMap(call -> toFloat64(call.1 - fanoutStartNs) / 1e6 + toFloat64(call.2) / 1e6, keptCalls)) AS finishesMs,
    arrayMap(call -> toFloat64(call.2) / 1e6, keptCalls) AS callDurationsMs,
    finishesMs[intDiv(toUInt64(murmurHash3_32(concat(toString(${param(opts.seed, 'UInt32')}), ':', traceId, ':', parentSpanId))) * width, 4294967296) + 1] AS oneLeafMs,
    finishesMs[intDiv(95 * width + 99, 100)] AS p95LeavesMs,
    finishesMs[width] AS allLeavesMs,
    structure, concurrency,
    arrayMap(call -> toFloat64(call.1 - fanoutStartNs) / 1e6, keptCalls) AS waitsMs,
    indexOf(arrayMap((w, d) -> w + d, waitsMs, callDurationsMs), allLeavesMs) AS stragglerIndex,
    waitsMs[stragglerIndex] > callDurationsMs[stragglerIndex] AS stragglerQueued
  FROM fanouts_in_scope`;
  const perOperation = sql`
  SELECT parentService, parentOperation, leafService, leafOperation,
    toUInt32(count()) AS requests,
    quantileExactInclusive(0.5)(width) AS widthP50,
    toUInt32(max(width)) AS widthMax,
    quantilesExactInclusive(0.5, 0.95, 0.99, 0.999)(oneLeafMs) AS oneLeaf,
    quantilesExactInclusive(0.5, 0.95, 0.99, 0.999)(p95LeavesMs) AS p95Leaves,
    quantilesExactInclusive(0.5, 0.95, 0.99, 0.999)(allLeavesMs) AS allLeaves,
    quantileExactInclusiveArray(0.99)(callDurationsMs) AS callP99,
    groupArrayArray(callDurationsMs) AS allCallDurationsMs,
    groupArray((toUInt32(width), allLeavesMs)) AS widthAndAllLeaves,
    toUInt32(countIf(structure = 'parallel')) AS parallelFanouts,
    toUInt32(countIf(structure = 'pool')) AS poolFanouts,
    quantileExactInclusive(0.5)(concurrency) AS concurrencyP50,
    toUInt32(max(concurrency)) AS concurrencyMax,
    arraySort(groupArrayIf(concurrency, structure = 'pool')) AS poolConcurrency,
    quantilesExactInclusiveArrayIf(0.5, 0.95, 0.99, 0.999)(waitsMs, structure = 'pool') AS queueWaitMs,
    groupArray((allLeavesMs, stragglerQueued)) AS allLeavesQueued
  FROM per_fanout${parentFilter}
  GROUP BY parentService, parentOperation, leafService, leafOperation`;
  // The width histogram: fan-outs sorted by width; the last index of each width gives the
  // count per width, and a running count of all-leaves times above the threshold the tail.
  const main = sql`SELECT parentService, parentOperation, leafService, leafOperation, requests, widthP50, widthMax,
  oneLeaf, p95Leaves, allLeaves, ${threshold} AS thresholdMs,
  parallelFanouts, poolFanouts, concurrencyP50, concurrencyMax, queueWaitMs,
  toUInt32(poolConcurrency[intDiv(length(poolConcurrency) + 1, 2)]) AS poolSize,
  toUInt32(arrayCount(f -> f.1 > thresholdMs AND f.2, allLeavesQueued)) AS queuedTailFanouts,
  toUInt32(arrayCount(d -> d <= thresholdMs, allCallDurationsMs)) AS callsAtMost,
  toUInt32(length(allCallDurationsMs)) AS calls,
  arraySort(fanout -> fanout.1, widthAndAllLeaves) AS byWidth,
  arrayMap(fanout -> fanout.1, byWidth) AS widths,
  arrayMap((w, next) -> w != next, widths, arrayPushBack(arrayPopFront(widths), toUInt32(0))) AS lastOfWidth,
  arrayFilter((w, last) -> last, widths, lastOfWidth) AS histogramWidths,
  arrayMap(c -> toUInt32(c), arrayPopFront(arrayDifference(arrayPushFront(
    arrayFilter((i, last) -> last, arrayEnumerate(widths), lastOfWidth), 0)))) AS histogramFanouts,
  arrayMap(c -> toUInt32(c), arrayPopFront(arrayDifference(arrayPushFront(
    arrayFilter((c, last) -> last, arrayCumSum(arrayMap(fanout -> toUInt32(fanout.2 > thresholdMs), byWidth)), lastOfWidth), 0)))) AS histogramTailFanouts
FROM per_operation
ORDER BY requests DESC, parentService, parentOperation, leafService, leafOperation
SETTINGS ${JOIN_SETTINGS}`;
  return withCtes(
    [
      ...namedFanouts(scope, cov),
      { name: 'per_fanout', body: perFanout },
      { name: 'per_operation', body: perOperation },
    ],
    main,
  );
}

/**
 * Per-host and fleet latency per time window for the calls of one leaf operation's fan-outs:
 * calls, type-7 p50/p99 and max of the call latency, windows aligned to the epoch, a call in the
 * window of its start. Sorted by host (fleet last), then window.
 */
export function hostWindowsSql(
  scope: FanoutScope,
  cov: Coverage,
  windowMs: number,
  weights?: Cte,
): Sql {
  const w = param(windowMs, 'Float64');
  // Weighted (docs/analysis.md "Sampling"; `weights` is fanoutWeightsCte): each call weighs its
  // fan-out's adjusted count; calls are rounded sums of weights, p50/p99 weighted quantiles.
  const weighted = weights !== undefined;
  const calls = sql`
  SELECT arrayJoin(arrayMap(call -> (call.3, call.4,
      floor((toFloat64(fanoutStartNs) / 1e6 + toFloat64(call.1 - fanoutStartNs) / 1e6) / ${w}),
      toFloat64(call.2) / 1e6), keptCalls)) AS windowCall,
    windowCall.1 AS host, windowCall.2 AS mode, windowCall.3 AS windowIndex, windowCall.4 AS durationMs${raw(
      weighted
        ? `,
    ${quantileWeight('if(fw.weight > 0, fw.weight, 1.0)')} AS weight1000,
    if(fw.weight > 0, fw.weight, 1.0) AS weight
  FROM fanouts_in_scope AS f
  LEFT JOIN fo_weights AS fw ON cityHash64(f.traceId, f.parentSpanId) = fw.key`
        : `
  FROM fanouts_in_scope`,
    )}`;
  const stats = weighted
    ? raw(`${weightedCount('sum(weight)')} AS calls,
  quantileExactWeightedInterpolated(0.5)(durationMs, weight1000) AS p50Ms,
  quantileExactWeightedInterpolated(0.99)(durationMs, weight1000) AS p99Ms,`)
    : raw(`toUInt32(count()) AS calls,
  quantileExactInclusive(0.5)(durationMs) AS p50Ms,
  quantileExactInclusive(0.99)(durationMs) AS p99Ms,`);
  const main = sql`SELECT host,
  if(isNull(host), NULL, if(countIf(mode != ${UNKNOWN_MODE}) > 0, minIf(mode, mode != ${UNKNOWN_MODE}), ${UNKNOWN_MODE})) AS mode,
  windowIndex * ${w} AS startMs,
  ${stats}
  max(durationMs) AS maxMs
FROM window_calls
GROUP BY GROUPING SETS ((host, windowIndex), (windowIndex))
ORDER BY isNull(host), host, windowIndex
SETTINGS group_by_use_nulls = 1, ${JOIN_SETTINGS}`;
  return withCtes(
    [
      ...placedFanouts(scope, cov, weighted),
      ...(weights ? [weights] : []),
      { name: 'window_calls', body: calls },
    ],
    main,
  );
}
