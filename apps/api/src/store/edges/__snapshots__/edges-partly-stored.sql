WITH
stored_edges AS (
  SELECT toString(parentService) AS parentService, toString(parentOperation) AS parentOperation,
    toString(leafService) AS leafService, toString(leafOperation) AS leafOperation,
    width, concurrency, toString(structure) AS structure, durationsNs, waitsNs, spanNs,
    callerDurationNs, wrappedCalls,
    arrayMap(x -> (toString(x.1), toString(x.2), x.3), skewed) AS skewed
  FROM tailscope_edges
  WHERE s0 >= {p0:Int64} AND s0 < {p1:Int64}
    AND has(arrayZip(arrayMap(x -> toInt64(x), {p2:Array(String)}), arrayMap(x -> toUInt64(x), {p3:Array(String)})), (chunk, version))
    AND parentService = {p4:String}
    AND leafService = {p5:String}
),
ts_spans AS /* materialize */ (
  SELECT
    cityHash64(TraceId, SpanId) AS key,
    cityHash64(TraceId, ParentSpanId) AS parentKey,
    TraceId AS traceId, SpanId AS spanId, ParentSpanId AS parentSpanId,
    toUInt8(multiIf(SpanKind IN ({p6:String}, {p7:String}), {p8:Int64}, SpanKind IN ({p9:String}, {p10:String}), {p11:Int64},
      SpanKind IN ({p12:String}, {p13:String}), {p14:Int64}, SpanKind IN ({p15:String}, {p16:String}), {p17:Int64},
      SpanKind IN ({p18:String}, {p19:String}), {p20:Int64}, 0)) AS kind,
    kind = {p21:Int64} AND (((SpanAttributes[{p22:String}] != '' OR SpanAttributes[{p23:String}] != '') AND (SpanAttributes[{p24:String}] != '' OR SpanAttributes[{p25:String}] != '' OR SpanAttributes[{p26:String}] != '' OR SpanAttributes[{p27:String}] != '')) OR SpanAttributes[{p28:String}] != '' OR SpanAttributes[{p29:String}] != '' OR SpanAttributes[{p30:String}] != '' OR SpanAttributes[{p31:String}] != '') AS clientAttrs,
    kind IN ({p32:Int64}, {p33:Int64}) OR clientAttrs AS isCallSpan,
    ServiceName AS service, SpanName AS name,
    toUnixTimestamp64Nano(Timestamp) AS startNs, toInt64(Duration) AS durationNs,
    multiIf(ResourceAttributes[{p34:String}] != '', ResourceAttributes[{p35:String}], ResourceAttributes[{p36:String}] != '', ResourceAttributes[{p37:String}], ResourceAttributes[{p38:String}] != '', ResourceAttributes[{p39:String}], ResourceAttributes[{p40:String}] != '', ResourceAttributes[{p41:String}], '') AS host,
    ResourceAttributes[{p42:String}] AS mode,
    if(isCallSpan, SpanAttributes[{p43:String}], '') AS peerService,
    if(isCallSpan, SpanAttributes[{p44:String}], '') AS serverAddress,
    mapContains(SpanAttributes, {p45:String}) AS background
  FROM {tracesTable:Identifier}
  WHERE Timestamp >= fromUnixTimestamp64Nano({p46:Int64}) AND Timestamp < fromUnixTimestamp64Nano({p47:Int64})
    AND cityHash64(TraceId) IN (SELECT cityHash64(TraceId) FROM {tracesTable:Identifier} WHERE Timestamp >= fromUnixTimestamp64Nano({p48:Int64}) AND Timestamp < fromUnixTimestamp64Nano({p49:Int64}))
  LIMIT 1 BY key
),
ts_wrappers AS /* materialize */ (
  SELECT key, parentKey AS upKey, parentSpanId AS upSpanId, toUInt8(1) AS isWrapper
  FROM ts_spans
  WHERE kind = {p50:Int64} AND NOT clientAttrs
    AND key IN (SELECT parentKey FROM ts_spans WHERE parentSpanId != '' GROUP BY parentKey HAVING count() = 1)
),
ts_answers AS (
  SELECT parentKey AS key, toUInt32(count()) AS answers,
    argMin(service, (startNs, spanId)) AS answerService, argMin(name, (startNs, spanId)) AS answerName,
    argMin(host, (startNs, spanId)) AS answerHost, argMin(mode, (startNs, spanId)) AS answerMode,
    toUInt32(countIf(kind = {p51:Int64})) AS servers,
    minIf(startNs, kind = {p52:Int64}) AS serverStartNs,
    maxIf(startNs + durationNs, kind = {p53:Int64}) AS serverEndNs
  FROM ts_spans
  WHERE kind IN ({p54:Int64}, {p55:Int64}) AND parentSpanId != ''
  GROUP BY parentKey
),
ts_hops AS (
  SELECT c.key AS key, c.traceId AS traceId, c.spanId AS spanId, c.kind AS kind, c.isCallSpan AS isCallSpan,
    c.service AS service, c.name AS name, c.startNs AS startNs, c.durationNs AS durationNs,
    c.host AS host, c.mode AS mode, c.peerService AS peerService, c.serverAddress AS serverAddress,
    if(w0.isWrapper = 1 AND w1.isWrapper = 1 AND w2.isWrapper = 1, w2.upKey, if(w0.isWrapper = 1 AND w1.isWrapper = 1, w1.upKey, if(w0.isWrapper = 1, w0.upKey, c.parentKey))) AS callerKey,
    if(w0.isWrapper = 1 AND w1.isWrapper = 1 AND w2.isWrapper = 1, w2.upSpanId, if(w0.isWrapper = 1 AND w1.isWrapper = 1, w1.upSpanId, if(w0.isWrapper = 1, w0.upSpanId, c.parentSpanId))) AS callerSpanId,
    toUInt8(if(w0.isWrapper = 1 AND w1.isWrapper = 1 AND w2.isWrapper = 1, 3, if(w0.isWrapper = 1 AND w1.isWrapper = 1, 2, if(w0.isWrapper = 1, 1, 0)))) AS wrappers
  FROM ts_spans AS c
  ANY LEFT JOIN ts_wrappers AS w0 ON c.parentKey = w0.key
  ANY LEFT JOIN ts_wrappers AS w1 ON w0.upKey = w1.key
  ANY LEFT JOIN ts_wrappers AS w2 ON w1.upKey = w2.key
  WHERE c.parentSpanId != '' AND NOT c.background
    AND (c.isCallSpan
      OR (c.kind = {p56:Int64} AND c.parentKey NOT IN (SELECT key FROM ts_spans WHERE isCallSpan))
      OR (c.kind = {p57:Int64} AND c.key NOT IN (SELECT key FROM ts_wrappers)))
),
calls AS (
  SELECT h.traceId AS traceId, h.callerKey AS callerKey, h.callerSpanId AS callerSpanId,
    p.service AS callerService, p.name AS callerOperation,
    p.startNs AS callerStartNs, p.durationNs AS callerDurationNs,
    h.spanId AS spanId, h.kind AS kind, h.isCallSpan AS isCallSpan,
    if(h.isCallSpan AND a.answers > 0 AND NOT (h.kind = 4 AND (h.peerService != '' OR h.serverAddress != '')), a.answerService, if(h.isCallSpan, if(h.peerService != '', h.peerService, h.serverAddress), h.service)) AS leafService,
    if(h.isCallSpan AND a.answers > 0 AND NOT (h.kind = 4 AND (h.peerService != '' OR h.serverAddress != '')), a.answerName, h.name) AS leafOperation,
    h.startNs AS startNs, h.durationNs AS durationNs, h.startNs + h.durationNs AS endNs,
    multiIf(h.isCallSpan AND a.answers > 0 AND NOT (h.kind = 4 AND (h.peerService != '' OR h.serverAddress != '')), if(a.answerHost != '', a.answerHost, {p58:String}),
      h.isCallSpan, if(h.serverAddress != '', h.serverAddress, {p59:String}),
      if(h.host != '', h.host, {p60:String})) AS host,
    multiIf(h.isCallSpan AND a.answers > 0 AND NOT (h.kind = 4 AND (h.peerService != '' OR h.serverAddress != '')), if(a.answerMode != '', a.answerMode, {p61:String}),
      h.isCallSpan, {p62:String}, if(h.mode != '', h.mode, {p63:String})) AS mode,
    if(h.host != '', h.host, {p64:String}) AS clientHost,
    if(h.isCallSpan, a.answers, toUInt32(0)) AS answers,
    if(h.isCallSpan AND a.servers > 0, greatest(h.startNs - a.serverStartNs, a.serverEndNs - endNs, toInt64(0)), toInt64(0)) AS skewNs,
    h.wrappers AS wrappers
  FROM ts_hops AS h
  ANY LEFT JOIN ts_answers AS a ON h.key = a.key
  ANY LEFT JOIN ts_spans AS p ON h.callerKey = p.key
  WHERE h.isCallSpan OR h.kind = {p65:Int64} OR (p.key != 0 AND p.service != h.service)
),
request_edges AS (
  SELECT
    callerKey AS fanoutKey, leafService, leafOperation,
    any(traceId) AS traceId, any(callerSpanId) AS parentSpanId,
    any(callerService) AS parentService, any(callerOperation) AS parentOperation,
    any(callerDurationNs) AS callerDurationNs,
    arraySort(groupArray((startNs, durationNs))) AS keptCalls,
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
      concurrency = width OR arrayMax(starts) - fanoutStartNs <= {p66:Int64}, 'parallel', 'pool') AS structure
  FROM calls
  WHERE callerService = {p67:String} AND leafService = {p68:String}
  GROUP BY callerKey, leafService, leafOperation
  HAVING fanoutStartNs >= {p69:Int64} AND fanoutStartNs < {p70:Int64}
),
live_edges AS (
  SELECT parentService, parentOperation, leafService, leafOperation, width, concurrency, structure,
    arrayMap(call -> call.2, keptCalls) AS durationsNs,
    arrayMap(call -> call.1 - fanoutStartNs, keptCalls) AS waitsNs,
    lastEndNs - fanoutStartNs AS spanNs, callerDurationNs, wrappedCalls, skewed, fanoutStartNs
  FROM request_edges
),
edges_in_scope AS (
  SELECT parentService, parentOperation, leafService, leafOperation, width, concurrency, structure, durationsNs, waitsNs, spanNs, callerDurationNs, wrappedCalls, skewed FROM stored_edges
  UNION ALL
  SELECT parentService, parentOperation, leafService, leafOperation, width, concurrency, structure, durationsNs, waitsNs, spanNs, callerDurationNs, wrappedCalls, skewed FROM live_edges
)
SELECT parentService, parentOperation, leafService, leafOperation,
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
  quantilesExactInclusiveArray(0.5, 0.95, 0.99, 0.999)(arrayMap(d -> toFloat64(d) / 1e6, durationsNs)) AS callLatency,
  quantilesExactInclusiveArray(0.5, 0.95, 0.99, 0.999)(if(structure = 'pool', arrayMap(w -> toFloat64(w) / 1e6, waitsNs), CAST([], 'Array(Float64)'))) AS queueWaitMs,
  quantilesExactInclusiveIf(0.5, 0.95, 0.99, 0.999)(toFloat64(spanNs) / toFloat64(callerDurationNs), callerDurationNs > 0) AS shareOfParent
FROM edges_in_scope
GROUP BY parentService, parentOperation, leafService, leafOperation
ORDER BY requests DESC, parentService, parentOperation, leafService, leafOperation
SETTINGS join_algorithm = 'parallel_hash'

-- p0: Int64 = "1700000000000000000"
-- p1: Int64 = "1700000600000000000"
-- p2: Array(String) = ["2833333"]
-- p3: Array(String) = ["17"]
-- p4: String = "frontend"
-- p5: String = "route"
-- p6: String = "Server"
-- p7: String = "SPAN_KIND_SERVER"
-- p8: Int64 = 1
-- p9: String = "Consumer"
-- p10: String = "SPAN_KIND_CONSUMER"
-- p11: Int64 = 2
-- p12: String = "Client"
-- p13: String = "SPAN_KIND_CLIENT"
-- p14: Int64 = 3
-- p15: String = "Producer"
-- p16: String = "SPAN_KIND_PRODUCER"
-- p17: Int64 = 4
-- p18: String = "Internal"
-- p19: String = "SPAN_KIND_INTERNAL"
-- p20: Int64 = 5
-- p21: Int64 = 5
-- p22: String = "http.request.method"
-- p23: String = "http.method"
-- p24: String = "url.full"
-- p25: String = "http.url"
-- p26: String = "server.address"
-- p27: String = "peer.service"
-- p28: String = "rpc.system"
-- p29: String = "db.system"
-- p30: String = "messaging.system"
-- p31: String = "peer.service"
-- p32: Int64 = 3
-- p33: Int64 = 4
-- p34: String = "host.name"
-- p35: String = "host.name"
-- p36: String = "k8s.node.name"
-- p37: String = "k8s.node.name"
-- p38: String = "host.id"
-- p39: String = "host.id"
-- p40: String = "service.instance.id"
-- p41: String = "service.instance.id"
-- p42: String = "host.sharing_mode"
-- p43: String = "peer.service"
-- p44: String = "server.address"
-- p45: String = "background.activity"
-- p46: Int64 = "1700000540000000000"
-- p47: Int64 = "1700001860000000000"
-- p48: Int64 = "1700000600000000000"
-- p49: Int64 = "1700001800000000000"
-- p50: Int64 = 5
-- p51: Int64 = 1
-- p52: Int64 = 1
-- p53: Int64 = 1
-- p54: Int64 = 1
-- p55: Int64 = 2
-- p56: Int64 = 1
-- p57: Int64 = 5
-- p58: String = "unknown"
-- p59: String = "unknown"
-- p60: String = "unknown"
-- p61: String = "unknown"
-- p62: String = "unknown"
-- p63: String = "unknown"
-- p64: String = "unknown"
-- p65: Int64 = 1
-- p66: Int64 = "1000000"
-- p67: String = "frontend"
-- p68: String = "route"
-- p69: Int64 = "1700000600000000000"
-- p70: Int64 = "1700001800000000000"
