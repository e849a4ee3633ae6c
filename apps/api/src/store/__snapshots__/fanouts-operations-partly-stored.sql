WITH
stored_fanouts AS (
  SELECT
    toString(leafService) AS leafService, toString(leafOperation) AS leafOperation,
    toString(parentService) AS parentService, toString(parentOperation) AS parentOperation,
    traceId, parentSpanId, n AS width, s0 AS fanoutStartNs, arrayZip(arrayMap(offset -> offset + s0, startOffsetNs), durationNs) AS keptCalls
  FROM tailscope_fanouts
  WHERE s0 >= {p0:Int64} AND s0 < {p1:Int64}
    AND has(arrayZip(arrayMap(x -> toInt64(x), {p2:Array(String)}), arrayMap(x -> toUInt64(x), {p3:Array(String)})), (chunk, version))
),
client_spans AS (
  SELECT
    cityHash64(TraceId, SpanId) AS clientKey,
    toUInt8(1) AS hasClient,
    cityHash64(TraceId, ParentSpanId) AS clientFanoutKey,
    TraceId AS clientTraceId,
    ParentSpanId AS clientParentSpanId,
    SpanName AS clientOperation,
    toUnixTimestamp64Nano(Timestamp) AS clientStartNs,
    toInt64(Duration) AS clientDurationNs,
    SpanAttributes[{p4:String}] AS peerService,
    SpanAttributes[{p5:String}] AS serverAddress
  FROM {tracesTable:Identifier}
  WHERE Timestamp >= fromUnixTimestamp64Nano({p6:Int64}) AND Timestamp < fromUnixTimestamp64Nano({p7:Int64}) AND SpanKind IN ({p8:String}, {p9:String})
),
server_spans AS (
  SELECT
    cityHash64(TraceId, ParentSpanId) AS serverParentKey,
    toUInt8(1) AS hasServer,
    TraceId AS serverTraceId,
    ParentSpanId AS serverParentSpanId,
    ServiceName AS serverService,
    SpanName AS serverOperation,
    toUnixTimestamp64Nano(Timestamp) AS serverStartNs,
    toInt64(Duration) AS serverDurationNs
  FROM {tracesTable:Identifier}
  WHERE Timestamp >= fromUnixTimestamp64Nano({p10:Int64}) AND Timestamp < fromUnixTimestamp64Nano({p11:Int64}) AND SpanKind IN ({p12:String}, {p13:String})
),
leaf_calls AS (
  SELECT
    if(hasClient = 1, clientFanoutKey, serverParentKey) AS fanoutKey,
    if(hasClient = 1, clientTraceId, serverTraceId) AS traceId,
    if(hasClient = 1, clientParentSpanId, serverParentSpanId) AS parentSpanId,
    if(hasServer = 1, serverService, if(peerService != '', peerService, serverAddress)) AS leafService,
    if(hasServer = 1, serverOperation, clientOperation) AS leafOperation,
    if(hasClient = 1, clientStartNs, serverStartNs) AS startNs,
    if(hasClient = 1, clientDurationNs, serverDurationNs) AS durationNs
  FROM client_spans AS c
  FULL OUTER JOIN server_spans AS s ON c.clientKey = s.serverParentKey
  WHERE parentSpanId != ''
),
live_fanouts AS (
  SELECT
    fanoutKey,
    leafService,
    leafOperation,
    any(traceId) AS traceId,
    any(parentSpanId) AS parentSpanId,
    arraySort(groupArray((startNs, durationNs))) AS sortedCalls,
    arrayMap(call -> call.1, sortedCalls) AS starts,
    arrayMap(call -> call.1 + call.2, sortedCalls) AS ends,
    if(length(sortedCalls) < 2 OR arrayMax(starts) <= arrayMin(ends), sortedCalls,
      arrayFilter((call, keep) -> keep, sortedCalls,
        arrayMap((i, endedBefore, callEnd, nextStart) -> endedBefore < i - 1 OR nextStart <= callEnd,
          arrayEnumerate(starts),
          arrayFilter((ended, boundary) -> boundary.2 = 0, arrayCumSum(arrayMap(boundary -> boundary.2, boundaries)),
            arraySort(arrayConcat(arrayMap(t -> (t, 0), starts), arrayMap(t -> (t, 1), ends))) AS boundaries),
          ends,
          arrayPushBack(arrayPopFront(starts), toInt64(9223372036854775807))))) AS keptCalls,
    length(keptCalls) AS width,
    keptCalls[1].1 AS fanoutStartNs
  FROM leaf_calls
  GROUP BY fanoutKey, leafService, leafOperation
  HAVING width >= 2 AND fanoutStartNs >= {p14:Int64} AND fanoutStartNs < {p15:Int64}
),
parent_spans AS (
  SELECT cityHash64(TraceId, SpanId) AS parentKey, ServiceName AS parentService, SpanName AS parentOperation
  FROM {tracesTable:Identifier}
  WHERE Timestamp >= fromUnixTimestamp64Nano({p16:Int64}) AND Timestamp < fromUnixTimestamp64Nano({p17:Int64})
),
live_named_fanouts AS (
  SELECT f.fanoutKey AS fanoutKey, f.leafService AS leafService, f.leafOperation AS leafOperation,
    p.parentService AS parentService, p.parentOperation AS parentOperation,
    f.traceId AS traceId, f.parentSpanId AS parentSpanId, f.width AS width,
    f.fanoutStartNs AS fanoutStartNs, f.keptCalls AS keptCalls
  FROM parent_spans AS p
  RIGHT JOIN live_fanouts AS f ON p.parentKey = f.fanoutKey
),
fanouts_in_scope AS (
  SELECT leafService, leafOperation, parentService, parentOperation, traceId, parentSpanId, width, fanoutStartNs, keptCalls FROM stored_fanouts
  UNION ALL
  SELECT leafService, leafOperation, parentService, parentOperation, traceId, parentSpanId, width, fanoutStartNs, keptCalls FROM live_named_fanouts
),
per_fanout AS (
  SELECT parentService, parentOperation, leafService, leafOperation, width,
    arraySort(arrayMap(call -> toFloat64(call.1 - fanoutStartNs) / 1e6 + toFloat64(call.2) / 1e6, keptCalls)) AS finishesMs,
    arrayMap(call -> toFloat64(call.2) / 1e6, keptCalls) AS callDurationsMs,
    finishesMs[intDiv(toUInt64(murmurHash3_32(concat(toString({p18:UInt32}), ':', traceId, ':', parentSpanId))) * width, 4294967296) + 1] AS oneLeafMs,
    finishesMs[intDiv(95 * width + 99, 100)] AS p95LeavesMs,
    finishesMs[width] AS allLeavesMs
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
    groupArray((toUInt32(width), allLeavesMs)) AS widthAndAllLeaves
  FROM per_fanout
  WHERE parentService = {p19:String}
  GROUP BY parentService, parentOperation, leafService, leafOperation
)
SELECT parentService, parentOperation, leafService, leafOperation, requests, widthP50, widthMax,
  oneLeaf, p95Leaves, allLeaves, {p20:Float64} AS thresholdMs,
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
-- p1: Int64 = "1700000600000000000"
-- p2: Array(String) = ["2833333"]
-- p3: Array(String) = ["17"]
-- p4: String = "peer.service"
-- p5: String = "server.address"
-- p6: Int64 = "1700000540000000000"
-- p7: Int64 = "1700001860000000000"
-- p8: String = "Client"
-- p9: String = "SPAN_KIND_CLIENT"
-- p10: Int64 = "1700000540000000000"
-- p11: Int64 = "1700001860000000000"
-- p12: String = "Server"
-- p13: String = "SPAN_KIND_SERVER"
-- p14: Int64 = "1700000600000000000"
-- p15: Int64 = "1700001800000000000"
-- p16: Int64 = "1700000540000000000"
-- p17: Int64 = "1700001860000000000"
-- p18: UInt32 = 11
-- p19: String = "front"
-- p20: Float64 = 15
