WITH
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
    SpanAttributes[{p0:String}] AS peerService,
    SpanAttributes[{p1:String}] AS serverAddress,
    if(SpanAttributes[{p2:String}] != '', SpanAttributes[{p3:String}], ResourceAttributes[{p4:String}]) AS clientAttr0,
    if(SpanAttributes[{p5:String}] != '', SpanAttributes[{p6:String}], ResourceAttributes[{p7:String}]) AS clientAttr1
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
    ResourceAttributes[{p20:String}] AS serverMode,
    if(SpanAttributes[{p21:String}] != '', SpanAttributes[{p22:String}], ResourceAttributes[{p23:String}]) AS serverAttr0,
    if(SpanAttributes[{p24:String}] != '', SpanAttributes[{p25:String}], ResourceAttributes[{p26:String}]) AS serverAttr1
  FROM {tracesTable:Identifier}
  WHERE Timestamp >= fromUnixTimestamp64Nano({p27:Int64}) AND Timestamp < fromUnixTimestamp64Nano({p28:Int64}) AND SpanKind IN ({p29:String}, {p30:String}) AND ServiceName = {p31:String}
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
    if(hasServer = 1, if(serverHost != '', serverHost, {p32:String}), if(serverAddress != '', serverAddress, {p33:String})) AS host,
    if(hasServer = 1 AND serverMode != '', serverMode, {p34:String}) AS mode,
    multiIf(hasServer = 1 AND serverAttr0 != '', serverAttr0, hasClient = 1 AND clientAttr0 != '', clientAttr0, {p35:String}) AS attr0,
    multiIf(hasServer = 1 AND serverAttr1 != '', serverAttr1, hasClient = 1 AND clientAttr1 != '', clientAttr1, {p36:String}) AS attr1
  FROM client_spans AS c
  FULL OUTER JOIN server_spans AS s ON c.clientKey = s.serverParentKey
  WHERE parentSpanId != ''
    AND leafService = {p37:String}
    AND leafOperation = {p38:String}
),
live_fanouts AS (
  SELECT
    fanoutKey,
    any(leafService) AS leafService,
    any(leafOperation) AS leafOperation,
    any(traceId) AS traceId,
    any(parentSpanId) AS parentSpanId,
    arraySort(groupArray((startNs, durationNs, host, mode, attr0, attr1))) AS sortedCalls,
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
  HAVING width >= 2 AND fanoutStartNs >= {p39:Int64} AND fanoutStartNs < {p40:Int64}
),
live_fanout_arrays AS (
  SELECT fanoutKey, traceId, parentSpanId, width, fanoutStartNs,
    arrayMap(call -> call.1, keptCalls) AS callStartNs,
    arrayMap(call -> call.2, keptCalls) AS callDurationNs,
    arrayMap(call -> call.3, keptCalls) AS callHosts,
    arrayMap(call -> call.4, keptCalls) AS callModes,
    arrayMap(call -> call.5, keptCalls) AS callAttr0,
    arrayMap(call -> call.6, keptCalls) AS callAttr1
  FROM live_fanouts
),
fanouts_in_scope AS (
  SELECT fanoutKey, traceId, parentSpanId, width, fanoutStartNs, callStartNs, callDurationNs, callHosts, callModes, callAttr0, callAttr1 FROM live_fanout_arrays
),
sampled_fanouts AS (
  SELECT fanoutStartNs, traceId, parentSpanId, width,
    arrayMap(t -> toFloat64(t - {p41:Int64}), callStartNs) AS callStartRel,
    arrayMap(d -> toFloat64(d), callDurationNs) AS callDurNs,
    callHosts, callModes, callAttr0, callAttr1,
    count() OVER () AS matchedFanouts
  FROM fanouts_in_scope
  ORDER BY cityHash64(fanoutKey)
  LIMIT {p42:Int64}
)
SELECT
  toUInt32(count()) AS fanouts,
  toUInt32(any(matchedFanouts)) AS matched,
  groupArray(traceId) AS traceIds,
  groupArray(parentSpanId) AS parentSpanIds,
  groupArray(toFloat64(fanoutStartNs) / 1e6) AS fanoutStartMs,
  groupArray(toFloat64(fanoutStartNs - {p43:Int64})) AS fanoutStartRel,
  groupArray(toUInt32(width)) AS widths,
  arrayFlatten(groupArray(callStartRel)) AS startRel,
  arrayFlatten(groupArray(callDurNs)) AS durNs,
  arrayMap(id -> toUInt32(id - 1), arrayEnumerateDense(arrayFlatten(groupArray(arrayMap(value -> cityHash64(value), callHosts))))) AS host,
  arrayFilter((hash, firstSeen) -> firstSeen = 1, arrayFlatten(groupArray(arrayMap(value -> cityHash64(value), callHosts))), arrayEnumerateUniq(arrayFlatten(groupArray(arrayMap(value -> cityHash64(value), callHosts))))) AS hostHashes,
  groupUniqArrayArray(arrayMap(value -> (cityHash64(value), toString(value)), callHosts)) AS hostPairs,
  arrayMap(id -> toUInt32(id - 1), arrayEnumerateDense(arrayFlatten(groupArray(arrayMap(value -> cityHash64(value), callModes))))) AS mode,
  arrayFilter((hash, firstSeen) -> firstSeen = 1, arrayFlatten(groupArray(arrayMap(value -> cityHash64(value), callModes))), arrayEnumerateUniq(arrayFlatten(groupArray(arrayMap(value -> cityHash64(value), callModes))))) AS modeHashes,
  groupUniqArrayArray(arrayMap(value -> (cityHash64(value), toString(value)), callModes)) AS modePairs,
  arrayMap(id -> toUInt32(id - 1), arrayEnumerateDense(arrayFlatten(groupArray(arrayMap(value -> cityHash64(value), callAttr0))))) AS attr0,
  arrayFilter((hash, firstSeen) -> firstSeen = 1, arrayFlatten(groupArray(arrayMap(value -> cityHash64(value), callAttr0))), arrayEnumerateUniq(arrayFlatten(groupArray(arrayMap(value -> cityHash64(value), callAttr0))))) AS attr0Hashes,
  groupUniqArrayArray(arrayMap(value -> (cityHash64(value), toString(value)), callAttr0)) AS attr0Pairs,
  arrayMap(id -> toUInt32(id - 1), arrayEnumerateDense(arrayFlatten(groupArray(arrayMap(value -> cityHash64(value), callAttr1))))) AS attr1,
  arrayFilter((hash, firstSeen) -> firstSeen = 1, arrayFlatten(groupArray(arrayMap(value -> cityHash64(value), callAttr1))), arrayEnumerateUniq(arrayFlatten(groupArray(arrayMap(value -> cityHash64(value), callAttr1))))) AS attr1Hashes,
  groupUniqArrayArray(arrayMap(value -> (cityHash64(value), toString(value)), callAttr1)) AS attr1Pairs
FROM sampled_fanouts
SETTINGS join_algorithm = 'parallel_hash'

-- p0: String = "peer.service"
-- p1: String = "server.address"
-- p2: String = "zone"
-- p3: String = "zone"
-- p4: String = "zone"
-- p5: String = "rack"
-- p6: String = "rack"
-- p7: String = "rack"
-- p8: Int64 = "1699999940000000000"
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
-- p21: String = "zone"
-- p22: String = "zone"
-- p23: String = "zone"
-- p24: String = "rack"
-- p25: String = "rack"
-- p26: String = "rack"
-- p27: Int64 = "1699999940000000000"
-- p28: Int64 = "1700001860000000000"
-- p29: String = "Server"
-- p30: String = "SPAN_KIND_SERVER"
-- p31: String = "kv"
-- p32: String = "unknown"
-- p33: String = "unknown"
-- p34: String = "unknown"
-- p35: String = "(absent)"
-- p36: String = "(absent)"
-- p37: String = "kv"
-- p38: String = "get"
-- p39: Int64 = "1700000000000000000"
-- p40: Int64 = "1700001800000000000"
-- p41: Int64 = "1699999940000000000"
-- p42: Int64 = 200000
-- p43: Int64 = "1699999940000000000"
