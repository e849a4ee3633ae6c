INSERT INTO tailscope_fanouts (chunk, version, s0, leafService, leafOperation, parentService, parentOperation,
  fk, traceId, parentSpanId, n, startOffsetNs, durationNs, hosts, modes)
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
    SpanAttributes[{p1:String}] AS serverAddress
  FROM {tracesTable:Identifier}
  WHERE Timestamp >= fromUnixTimestamp64Nano({p2:Int64}) AND Timestamp < fromUnixTimestamp64Nano({p3:Int64}) AND SpanKind IN ({p4:String}, {p5:String})
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
    multiIf(ResourceAttributes[{p6:String}] != '', ResourceAttributes[{p7:String}], ResourceAttributes[{p8:String}] != '', ResourceAttributes[{p9:String}], ResourceAttributes[{p10:String}] != '', ResourceAttributes[{p11:String}], ResourceAttributes[{p12:String}] != '', ResourceAttributes[{p13:String}], '') AS serverHost,
    ResourceAttributes[{p14:String}] AS serverMode
  FROM {tracesTable:Identifier}
  WHERE Timestamp >= fromUnixTimestamp64Nano({p15:Int64}) AND Timestamp < fromUnixTimestamp64Nano({p16:Int64}) AND SpanKind IN ({p17:String}, {p18:String})
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
    if(hasServer = 1, if(serverHost != '', serverHost, {p19:String}), if(serverAddress != '', serverAddress, {p20:String})) AS host,
    if(hasServer = 1 AND serverMode != '', serverMode, {p21:String}) AS mode
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
  GROUP BY fanoutKey, leafService, leafOperation
  HAVING width >= 2 AND fanoutStartNs >= {p22:Int64} AND fanoutStartNs < {p23:Int64}
),
parent_spans AS (
  SELECT cityHash64(TraceId, SpanId) AS parentKey, ServiceName AS parentService, SpanName AS parentOperation
  FROM {tracesTable:Identifier}
  WHERE Timestamp >= fromUnixTimestamp64Nano({p24:Int64}) AND Timestamp < fromUnixTimestamp64Nano({p25:Int64})
),
live_named_fanouts AS (
  SELECT f.fanoutKey AS fanoutKey, f.leafService AS leafService, f.leafOperation AS leafOperation,
    p.parentService AS parentService, p.parentOperation AS parentOperation,
    f.traceId AS traceId, f.parentSpanId AS parentSpanId, f.width AS width,
    f.fanoutStartNs AS fanoutStartNs, f.keptCalls AS keptCalls
  FROM parent_spans AS p
  RIGHT JOIN live_fanouts AS f ON p.parentKey = f.fanoutKey
)
SELECT
  intDiv(fanoutStartNs, {p26:Int64}) AS chunk,
  {p27:UInt64} AS version,
  fanoutStartNs AS s0,
  leafService, leafOperation, parentService, parentOperation,
  fanoutKey AS fk, traceId, parentSpanId, toUInt32(width) AS n,
  arrayMap(call -> call.1 - fanoutStartNs, keptCalls) AS startOffsetNs,
  arrayMap(call -> call.2, keptCalls) AS durationNs,
  arrayMap(call -> call.3, keptCalls) AS hosts,
  arrayMap(call -> call.4, keptCalls) AS modes
FROM live_named_fanouts
SETTINGS join_algorithm = 'parallel_hash'

-- p0: String = "peer.service"
-- p1: String = "server.address"
-- p2: Int64 = "1699999940000000000"
-- p3: Int64 = "1700001860000000000"
-- p4: String = "Client"
-- p5: String = "SPAN_KIND_CLIENT"
-- p6: String = "host.name"
-- p7: String = "host.name"
-- p8: String = "k8s.node.name"
-- p9: String = "k8s.node.name"
-- p10: String = "host.id"
-- p11: String = "host.id"
-- p12: String = "service.instance.id"
-- p13: String = "service.instance.id"
-- p14: String = "host.sharing_mode"
-- p15: Int64 = "1699999940000000000"
-- p16: Int64 = "1700001860000000000"
-- p17: String = "Server"
-- p18: String = "SPAN_KIND_SERVER"
-- p19: String = "unknown"
-- p20: String = "unknown"
-- p21: String = "unknown"
-- p22: Int64 = "1700000000000000000"
-- p23: Int64 = "1700001800000000000"
-- p24: Int64 = "1699999940000000000"
-- p25: Int64 = "1700001860000000000"
-- p26: Int64 = "600000000000"
-- p27: UInt64 = "1700000000000000123"
