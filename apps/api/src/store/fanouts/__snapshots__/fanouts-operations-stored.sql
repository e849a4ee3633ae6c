WITH
stored_fanouts AS (
  SELECT
    toString(leafService) AS leafService, toString(leafOperation) AS leafOperation,
    toString(parentService) AS parentService, toString(parentOperation) AS parentOperation,
    traceId, parentSpanId, n AS width, s0 AS fanoutStartNs, arrayZip(arrayMap(offset -> offset + s0, startOffsetNs), durationNs) AS keptCalls,
    concurrency, toString(structure) AS structure
  FROM tailscope_fanouts
  WHERE s0 >= {p0:Int64} AND s0 < {p1:Int64}
    AND has(arrayZip(arrayMap(x -> toInt64(x), {p2:Array(String)}), arrayMap(x -> toUInt64(x), {p3:Array(String)})), (chunk, version))
),
fanouts_in_scope AS (
  SELECT leafService, leafOperation, parentService, parentOperation, traceId, parentSpanId, width, fanoutStartNs, keptCalls, concurrency, structure FROM stored_fanouts
),
per_fanout AS (
  SELECT parentService, parentOperation, leafService, leafOperation, width,
    arraySort(arrayMap(call -> toFloat64(call.1 - fanoutStartNs) / 1e6 + toFloat64(call.2) / 1e6, keptCalls)) AS finishesMs,
    arrayMap(call -> toFloat64(call.2) / 1e6, keptCalls) AS callDurationsMs,
    finishesMs[intDiv(toUInt64(murmurHash3_32(concat(toString({p4:UInt32}), ':', traceId, ':', parentSpanId))) * width, 4294967296) + 1] AS oneLeafMs,
    finishesMs[intDiv(95 * width + 99, 100)] AS p95LeavesMs,
    finishesMs[width] AS allLeavesMs,
    structure, concurrency,
    arrayMap(call -> toFloat64(call.1 - fanoutStartNs) / 1e6, keptCalls) AS waitsMs,
    indexOf(arrayMap((w, d) -> w + d, waitsMs, callDurationsMs), allLeavesMs) AS stragglerIndex,
    waitsMs[stragglerIndex] > callDurationsMs[stragglerIndex] AS stragglerQueued
  FROM fanouts_in_scope
),
per_operation AS (
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
  FROM per_fanout
  GROUP BY parentService, parentOperation, leafService, leafOperation
)
SELECT parentService, parentOperation, leafService, leafOperation, requests, widthP50, widthMax,
  oneLeaf, p95Leaves, allLeaves, callP99 AS thresholdMs,
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
SETTINGS join_algorithm = 'parallel_hash'

-- p0: Int64 = "1700000000000000000"
-- p1: Int64 = "1700001800000000000"
-- p2: Array(String) = ["2833333","2833334","2833335"]
-- p3: Array(String) = ["17","17","17"]
-- p4: UInt32 = 11
