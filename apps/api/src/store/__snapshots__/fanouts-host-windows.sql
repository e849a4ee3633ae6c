WITH
stored_fanouts AS (
  SELECT
    s0 AS fanoutStartNs, arrayZip(arrayMap(offset -> offset + s0, startOffsetNs), durationNs, arrayMap(h -> toString(h), hosts), arrayMap(m -> toString(m), modes)) AS keptCalls
  FROM tailscope_fanouts
  WHERE s0 >= {p0:Int64} AND s0 < {p1:Int64}
    AND has(arrayZip(arrayMap(x -> toInt64(x), {p2:Array(String)}), arrayMap(x -> toUInt64(x), {p3:Array(String)})), (chunk, version))
    AND leafService = {p4:String}
    AND leafOperation = {p5:String}
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
    SpanAttributes[{p6:String}] AS peerService,
    SpanAttributes[{p7:String}] AS serverAddress
  FROM {tracesTable:Identifier}
  WHERE Timestamp >= fromUnixTimestamp64Nano({p8:Int64}) AND Timestamp < fromUnixTimestamp64Nano({p9:Int64}) AND SpanKind IN ({p10:String}, {p11:String})
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
    toInt64(Duration) AS serverDurationNs,
    multiIf(ResourceAttributes[{p12:String}] != '', ResourceAttributes[{p13:String}], ResourceAttributes[{p14:String}] != '', ResourceAttributes[{p15:String}], ResourceAttributes[{p16:String}] != '', ResourceAttributes[{p17:String}], ResourceAttributes[{p18:String}] != '', ResourceAttributes[{p19:String}], '') AS serverHost,
    ResourceAttributes[{p20:String}] AS serverMode
  FROM {tracesTable:Identifier}
  WHERE Timestamp >= fromUnixTimestamp64Nano({p21:Int64}) AND Timestamp < fromUnixTimestamp64Nano({p22:Int64}) AND SpanKind IN ({p23:String}, {p24:String}) AND ServiceName = {p25:String}
),
leaf_calls AS (
  SELECT
    if(hasClient = 1, clientFanoutKey, serverParentKey) AS fanoutKey,
    if(hasClient = 1, clientTraceId, serverTraceId) AS traceId,
    if(hasClient = 1, clientParentSpanId, serverParentSpanId) AS parentSpanId,
    if(hasServer = 1, serverService, if(peerService != '', peerService, serverAddress)) AS leafService,
    if(hasServer = 1, serverOperation, clientOperation) AS leafOperation,
    if(hasClient = 1, clientStartNs, serverStartNs) AS startNs,
    if(hasClient = 1, clientDurationNs, serverDurationNs) AS durationNs,
    if(hasServer = 1, if(serverHost != '', serverHost, {p26:String}), if(serverAddress != '', serverAddress, {p27:String})) AS host,
    if(hasServer = 1 AND serverMode != '', serverMode, {p28:String}) AS mode
  FROM client_spans AS c
  FULL OUTER JOIN server_spans AS s ON c.clientKey = s.serverParentKey
  WHERE parentSpanId != ''
    AND leafService = {p29:String}
    AND leafOperation = {p30:String}
),
live_fanouts AS (
  SELECT
    fanoutKey,
    any(leafService) AS leafService,
    any(leafOperation) AS leafOperation,
    any(traceId) AS traceId,
    any(parentSpanId) AS parentSpanId,
    arraySort(groupArray((startNs, durationNs, host, mode))) AS sortedCalls,
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
  GROUP BY fanoutKey
  HAVING width >= 2 AND fanoutStartNs >= {p31:Int64} AND fanoutStartNs < {p32:Int64}
),
fanouts_in_scope AS (
  SELECT fanoutStartNs, keptCalls FROM stored_fanouts
  UNION ALL
  SELECT fanoutStartNs, keptCalls FROM live_fanouts
),
window_calls AS (
  SELECT arrayJoin(arrayMap(call -> (call.3, call.4,
      floor((toFloat64(fanoutStartNs) / 1e6 + toFloat64(call.1 - fanoutStartNs) / 1e6) / {p33:Float64}),
      toFloat64(call.2) / 1e6), keptCalls)) AS windowCall,
    windowCall.1 AS host, windowCall.2 AS mode, windowCall.3 AS windowIndex, windowCall.4 AS durationMs
  FROM fanouts_in_scope
)
SELECT host,
  if(isNull(host), NULL, if(countIf(mode != {p34:String}) > 0, minIf(mode, mode != {p35:String}), {p36:String})) AS mode,
  windowIndex * {p37:Float64} AS startMs,
  toUInt32(count()) AS calls,
  quantileExactInclusive(0.5)(durationMs) AS p50Ms,
  quantileExactInclusive(0.99)(durationMs) AS p99Ms,
  max(durationMs) AS maxMs
FROM window_calls
GROUP BY GROUPING SETS ((host, windowIndex), (windowIndex))
ORDER BY isNull(host), host, windowIndex
SETTINGS group_by_use_nulls = 1, join_algorithm = 'parallel_hash'

-- p0: Int64 = "1700000000000000000"
-- p1: Int64 = "1700000600000000000"
-- p2: Array(String) = ["2833333"]
-- p3: Array(String) = ["17"]
-- p4: String = "kv"
-- p5: String = "get"
-- p6: String = "peer.service"
-- p7: String = "server.address"
-- p8: Int64 = "1700000540000000000"
-- p9: Int64 = "1700001860000000000"
-- p10: String = "Client"
-- p11: String = "SPAN_KIND_CLIENT"
-- p12: String = "host.name"
-- p13: String = "host.name"
-- p14: String = "k8s.node.name"
-- p15: String = "k8s.node.name"
-- p16: String = "host.id"
-- p17: String = "host.id"
-- p18: String = "service.instance.id"
-- p19: String = "service.instance.id"
-- p20: String = "host.sharing_mode"
-- p21: Int64 = "1700000540000000000"
-- p22: Int64 = "1700001860000000000"
-- p23: String = "Server"
-- p24: String = "SPAN_KIND_SERVER"
-- p25: String = "kv"
-- p26: String = "unknown"
-- p27: String = "unknown"
-- p28: String = "unknown"
-- p29: String = "kv"
-- p30: String = "get"
-- p31: Int64 = "1700000600000000000"
-- p32: Int64 = "1700001800000000000"
-- p33: Float64 = 5000
-- p34: String = "unknown"
-- p35: String = "unknown"
-- p36: String = "unknown"
-- p37: Float64 = 5000
