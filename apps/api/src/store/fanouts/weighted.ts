import { EDGE_SLACK_NS } from '@tailscope/analysis';
import { namedFanouts } from './queries';
import { inWindow, JOIN_SETTINGS, withCtes, type Cte, type FanoutScope } from './sql';
import type { Coverage } from './stored';
import { adjustedCountSql, quantileWeight, weightedCount } from '../traces/sampling';
import { param, raw, sql, type Sql } from '../sql/template';
import { TRACES } from '../traces/tables';

/**
 * The operations table (fanouts-queries.ts fanoutOperationsSql) weighted by sampling
 * (docs/analysis.md "Sampling"): a fan-out weighs its trace's adjusted count, read from the
 * TraceState of its parent span (the caller whose calls fan out). Counts (requests, calls,
 * calls at most the threshold, structure counts, the width histogram, queued tail fan-outs) are
 * sums of weights rounded to integers (Float64: they pass 2^32 at 1-in-2^24 sampling); quantiles are ClickHouse's
 * `quantilesExactWeightedInterpolated` with integer weights round(adjusted count * 1000).
 * Stored chunks serve as they are: the weight is joined on (traceId, parentSpanId), which both
 * stored and live fan-outs carry.
 */

/** Integer weights of the weighted quantiles: adjusted count * 1000, rounded (capped). */
const W = quantileWeight('weight');
const QS = 'quantilesExactWeightedInterpolated(0.5, 0.95, 0.99, 0.999)';

/**
 * Adjusted counts of the spans that carry a TraceState (unsampled data: an empty table), keyed
 * by cityHash64(TraceId, SpanId); a fan-out joins it on its (traceId, parentSpanId).
 */
export function fanoutWeightsCte(scope: FanoutScope): Cte {
  return {
    name: 'fo_weights',
    body: sql`
  SELECT cityHash64(TraceId, SpanId) AS key, any(${adjustedCountSql()}) AS weight
  FROM ${TRACES}
  WHERE ${inWindow(scope.fromNs - EDGE_SLACK_NS, scope.toNs + EDGE_SLACK_NS)} AND TraceState != ''
  GROUP BY key`,
  };
}

export function weightedFanoutOperationsSql(
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
    if(fw.weight > 0, fw.weight, 1.0) AS weight,
    arraySort(arrayMap(call -> toFloat64(call.1 - fanoutStartNs) / 1e6 + toFloat64(call.2) / 1e6, keptCalls)) AS finishesMs,
    arrayMap(call -> toFloat64(call.2) / 1e6, keptCalls) AS callDurationsMs,
    finishesMs[intDiv(toUInt64(murmurHash3_32(concat(toString(${param(opts.seed, 'UInt32')}), ':', traceId, ':', parentSpanId))) * width, 4294967296) + 1] AS oneLeafMs,
    finishesMs[intDiv(95 * width + 99, 100)] AS p95LeavesMs,
    finishesMs[width] AS allLeavesMs,
    structure, concurrency,
    arrayMap(call -> toFloat64(call.1 - fanoutStartNs) / 1e6, keptCalls) AS waitsMs,
    indexOf(arrayMap((w, d) -> w + d, waitsMs, callDurationsMs), allLeavesMs) AS stragglerIndex,
    waitsMs[stragglerIndex] > callDurationsMs[stragglerIndex] AS stragglerQueued
  FROM fanouts_in_scope AS f
  LEFT JOIN fo_weights AS fw ON cityHash64(f.traceId, f.parentSpanId) = fw.key`;
  const perOperation = raw(`
  SELECT parentService, parentOperation, leafService, leafOperation,
    ${weightedCount('sum(weight)')} AS requests,
    quantileExactWeightedInterpolated(0.5)(width, ${W}) AS widthP50,
    toUInt32(max(width)) AS widthMax,
    ${QS}(oneLeafMs, ${W}) AS oneLeaf,
    ${QS}(p95LeavesMs, ${W}) AS p95Leaves,
    ${QS}(allLeavesMs, ${W}) AS allLeaves,
    quantileExactWeightedInterpolatedArray(0.99)(callDurationsMs, arrayMap(d -> ${W}, callDurationsMs)) AS callP99,
    groupArrayArray(arrayMap(d -> (d, weight), callDurationsMs)) AS allCalls,
    groupArray((toUInt32(width), allLeavesMs, weight)) AS widthAndAllLeaves,
    ${weightedCount("sumIf(weight, structure = 'parallel')")} AS parallelFanouts,
    ${weightedCount("sumIf(weight, structure = 'pool')")} AS poolFanouts,
    quantileExactWeightedInterpolated(0.5)(concurrency, ${W}) AS concurrencyP50,
    toUInt32(max(concurrency)) AS concurrencyMax,
    arraySort(groupArrayIf(concurrency, structure = 'pool')) AS poolConcurrency,
    ${QS.replace('(0.5', 'ArrayIf(0.5')}(waitsMs, arrayMap(x -> ${W}, waitsMs), structure = 'pool') AS queueWaitMs,
    groupArray((allLeavesMs, stragglerQueued, weight)) AS allLeavesQueued
  FROM per_fanout`);
  // The width histogram as fanoutOperationsSql builds it, with running sums of weights where
  // it counts fan-outs.
  const main = sql`SELECT parentService, parentOperation, leafService, leafOperation, requests, widthP50, widthMax,
  oneLeaf, p95Leaves, allLeaves, ${threshold} AS thresholdMs,
  parallelFanouts, poolFanouts, concurrencyP50, concurrencyMax, queueWaitMs,
  toUInt32(poolConcurrency[intDiv(length(poolConcurrency) + 1, 2)]) AS poolSize,
  round(arraySum(f -> if(f.1 > thresholdMs AND f.2, f.3, 0), allLeavesQueued)) AS queuedTailFanouts,
  round(arraySum(c -> if(c.1 <= thresholdMs, c.2, 0), allCalls)) AS callsAtMost,
  round(arraySum(c -> c.2, allCalls)) AS calls,
  arraySort(fanout -> fanout.1, widthAndAllLeaves) AS byWidth,
  arrayMap(fanout -> fanout.1, byWidth) AS widths,
  arrayMap((w, next) -> w != next, widths, arrayPushBack(arrayPopFront(widths), toUInt32(0))) AS lastOfWidth,
  arrayFilter((w, last) -> last, widths, lastOfWidth) AS histogramWidths,
  arrayMap(c -> round(c), arrayPopFront(arrayDifference(arrayPushFront(
    arrayFilter((c, last) -> last, arrayCumSum(arrayMap(fanout -> fanout.3, byWidth)), lastOfWidth), 0)))) AS histogramFanouts,
  arrayMap(c -> round(c), arrayPopFront(arrayDifference(arrayPushFront(
    arrayFilter((c, last) -> last, arrayCumSum(arrayMap(fanout -> if(fanout.2 > thresholdMs, fanout.3, 0), byWidth)), lastOfWidth), 0)))) AS histogramTailFanouts
FROM per_operation
ORDER BY requests DESC, parentService, parentOperation, leafService, leafOperation
SETTINGS ${JOIN_SETTINGS}`;
  return withCtes(
    [
      ...namedFanouts(scope, cov),
      fanoutWeightsCte(scope),
      { name: 'per_fanout', body: perFanout },
      {
        name: 'per_operation',
        body: sql`${perOperation}${parentFilter}
  GROUP BY parentService, parentOperation, leafService, leafOperation`,
      },
    ],
    main,
  );
}
