WITH
ts_spans AS /* materialize */ (
  SELECT
    cityHash64(TraceId, SpanId) AS key,
    cityHash64(TraceId, ParentSpanId) AS parentKey,
    TraceId AS traceId, SpanId AS spanId, ParentSpanId AS parentSpanId,
    toUInt8(multiIf(SpanKind IN ({p0:String}, {p1:String}), {p2:Int64}, SpanKind IN ({p3:String}, {p4:String}), {p5:Int64},
      SpanKind IN ({p6:String}, {p7:String}), {p8:Int64}, SpanKind IN ({p9:String}, {p10:String}), {p11:Int64},
      SpanKind IN ({p12:String}, {p13:String}), {p14:Int64}, 0)) AS kind,
    kind = {p15:Int64} AND (((SpanAttributes[{p16:String}] != '' OR SpanAttributes[{p17:String}] != '') AND (SpanAttributes[{p18:String}] != '' OR SpanAttributes[{p19:String}] != '' OR SpanAttributes[{p20:String}] != '' OR SpanAttributes[{p21:String}] != '')) OR SpanAttributes[{p22:String}] != '' OR SpanAttributes[{p23:String}] != '' OR SpanAttributes[{p24:String}] != '' OR SpanAttributes[{p25:String}] != '') AS clientAttrs,
    kind IN ({p26:Int64}, {p27:Int64}) OR clientAttrs AS isCallSpan,
    ServiceName AS service, SpanName AS name,
    toUnixTimestamp64Nano(Timestamp) AS startNs, toInt64(Duration) AS durationNs,
    multiIf(ResourceAttributes[{p28:String}] != '', ResourceAttributes[{p29:String}], ResourceAttributes[{p30:String}] != '', ResourceAttributes[{p31:String}], ResourceAttributes[{p32:String}] != '', ResourceAttributes[{p33:String}], ResourceAttributes[{p34:String}] != '', ResourceAttributes[{p35:String}], '') AS host,
    ResourceAttributes[{p36:String}] AS mode,
    if(isCallSpan, SpanAttributes[{p37:String}], '') AS peerService,
    if(isCallSpan, SpanAttributes[{p38:String}], '') AS serverAddress,
    mapContains(SpanAttributes, {p39:String}) AS background
  FROM {tracesTable:Identifier}
  WHERE Timestamp >= fromUnixTimestamp64Nano({p40:Int64}) AND Timestamp < fromUnixTimestamp64Nano({p41:Int64})
    AND cityHash64(TraceId) IN (SELECT cityHash64(TraceId) FROM {tracesTable:Identifier} WHERE Timestamp >= fromUnixTimestamp64Nano({p42:Int64}) AND Timestamp < fromUnixTimestamp64Nano({p43:Int64}))
  LIMIT 1 BY key
),
ts_wrappers AS /* materialize */ (
  SELECT key, parentKey AS upKey, parentSpanId AS upSpanId, toUInt8(1) AS isWrapper
  FROM ts_spans
  WHERE kind = {p44:Int64} AND NOT clientAttrs
    AND key IN (SELECT parentKey FROM ts_spans WHERE parentSpanId != '' GROUP BY parentKey HAVING count() = 1)
),
ts_answers AS (
  SELECT parentKey AS key, toUInt32(count()) AS answers,
    argMin(service, (startNs, spanId)) AS answerService, argMin(name, (startNs, spanId)) AS answerName,
    argMin(host, (startNs, spanId)) AS answerHost, argMin(mode, (startNs, spanId)) AS answerMode,
    toUInt32(countIf(kind = {p45:Int64})) AS servers,
    minIf(startNs, kind = {p46:Int64}) AS serverStartNs,
    maxIf(startNs + durationNs, kind = {p47:Int64}) AS serverEndNs
  FROM ts_spans
  WHERE kind IN ({p48:Int64}, {p49:Int64}) AND parentSpanId != ''
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
      OR (c.kind = {p50:Int64} AND c.parentKey NOT IN (SELECT key FROM ts_spans WHERE isCallSpan))
      OR (c.kind = {p51:Int64} AND c.key NOT IN (SELECT key FROM ts_wrappers)))
),
calls AS (
  SELECT h.traceId AS traceId, h.callerKey AS callerKey, h.callerSpanId AS callerSpanId,
    p.service AS callerService, p.name AS callerOperation,
    p.startNs AS callerStartNs, p.durationNs AS callerDurationNs,
    h.spanId AS spanId, h.kind AS kind, h.isCallSpan AS isCallSpan,
    if(h.isCallSpan AND a.answers > 0 AND NOT (h.kind = 4 AND (h.peerService != '' OR h.serverAddress != '')), a.answerService, if(h.isCallSpan, if(h.peerService != '', h.peerService, h.serverAddress), h.service)) AS leafService,
    if(h.isCallSpan AND a.answers > 0 AND NOT (h.kind = 4 AND (h.peerService != '' OR h.serverAddress != '')), a.answerName, h.name) AS leafOperation,
    h.startNs AS startNs, h.durationNs AS durationNs, h.startNs + h.durationNs AS endNs,
    multiIf(h.isCallSpan AND a.answers > 0 AND NOT (h.kind = 4 AND (h.peerService != '' OR h.serverAddress != '')), if(a.answerHost != '', a.answerHost, {p52:String}),
      h.isCallSpan, if(h.serverAddress != '', h.serverAddress, {p53:String}),
      if(h.host != '', h.host, {p54:String})) AS host,
    multiIf(h.isCallSpan AND a.answers > 0 AND NOT (h.kind = 4 AND (h.peerService != '' OR h.serverAddress != '')), if(a.answerMode != '', a.answerMode, {p55:String}),
      h.isCallSpan, {p56:String}, if(h.mode != '', h.mode, {p57:String})) AS mode,
    if(h.host != '', h.host, {p58:String}) AS clientHost,
    if(h.isCallSpan, a.answers, toUInt32(0)) AS answers,
    if(h.isCallSpan AND a.servers > 0, greatest(h.startNs - a.serverStartNs, a.serverEndNs - endNs, toInt64(0)), toInt64(0)) AS skewNs,
    h.wrappers AS wrappers
  FROM ts_hops AS h
  ANY LEFT JOIN ts_answers AS a ON h.key = a.key
  ANY LEFT JOIN ts_spans AS p ON h.callerKey = p.key
  WHERE h.isCallSpan OR h.kind = {p59:Int64} OR (p.key != 0 AND p.service != h.service)
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
      concurrency = width OR arrayMax(starts) - fanoutStartNs <= {p60:Int64}, 'parallel', 'pool') AS structure
  FROM calls
  WHERE callerService = {p61:String} AND leafService = {p62:String}
  GROUP BY callerKey, leafService, leafOperation
  HAVING fanoutStartNs >= {p63:Int64} AND fanoutStartNs < {p64:Int64}
),
live_edges AS (
  SELECT parentService, parentOperation, leafService, leafOperation, width, concurrency, structure,
    arrayMap(call -> call.2, keptCalls) AS durationsNs,
    arrayMap(call -> call.1 - fanoutStartNs, keptCalls) AS waitsNs,
    lastEndNs - fanoutStartNs AS spanNs, callerDurationNs, wrappedCalls, skewed, fanoutStartNs
  FROM request_edges
),
edges_in_scope AS (
  SELECT parentService, parentOperation, leafService, leafOperation, width, concurrency, structure, durationsNs, waitsNs, spanNs, callerDurationNs, wrappedCalls, skewed FROM live_edges
)
SELECT pair.1 AS clientHost, pair.2 AS serverHost, toUInt32(count()) AS calls, max(pair.3) / 1e6 AS maxMs
FROM edges_in_scope
ARRAY JOIN skewed AS pair
GROUP BY clientHost, serverHost
ORDER BY clientHost, serverHost
SETTINGS join_algorithm = 'parallel_hash'

-- p0: String = "Server"
-- p1: String = "SPAN_KIND_SERVER"
-- p2: Int64 = 1
-- p3: String = "Consumer"
-- p4: String = "SPAN_KIND_CONSUMER"
-- p5: Int64 = 2
-- p6: String = "Client"
-- p7: String = "SPAN_KIND_CLIENT"
-- p8: Int64 = 3
-- p9: String = "Producer"
-- p10: String = "SPAN_KIND_PRODUCER"
-- p11: Int64 = 4
-- p12: String = "Internal"
-- p13: String = "SPAN_KIND_INTERNAL"
-- p14: Int64 = 5
-- p15: Int64 = 5
-- p16: String = "http.request.method"
-- p17: String = "http.method"
-- p18: String = "url.full"
-- p19: String = "http.url"
-- p20: String = "server.address"
-- p21: String = "peer.service"
-- p22: String = "rpc.system"
-- p23: String = "db.system"
-- p24: String = "messaging.system"
-- p25: String = "peer.service"
-- p26: Int64 = 3
-- p27: Int64 = 4
-- p28: String = "host.name"
-- p29: String = "host.name"
-- p30: String = "k8s.node.name"
-- p31: String = "k8s.node.name"
-- p32: String = "host.id"
-- p33: String = "host.id"
-- p34: String = "service.instance.id"
-- p35: String = "service.instance.id"
-- p36: String = "host.sharing_mode"
-- p37: String = "peer.service"
-- p38: String = "server.address"
-- p39: String = "background.activity"
-- p40: Int64 = "1699999940000000000"
-- p41: Int64 = "1700001860000000000"
-- p42: Int64 = "1700000000000000000"
-- p43: Int64 = "1700001800000000000"
-- p44: Int64 = 5
-- p45: Int64 = 1
-- p46: Int64 = 1
-- p47: Int64 = 1
-- p48: Int64 = 1
-- p49: Int64 = 2
-- p50: Int64 = 1
-- p51: Int64 = 5
-- p52: String = "unknown"
-- p53: String = "unknown"
-- p54: String = "unknown"
-- p55: String = "unknown"
-- p56: String = "unknown"
-- p57: String = "unknown"
-- p58: String = "unknown"
-- p59: Int64 = 1
-- p60: Int64 = "1000000"
-- p61: String = "frontend"
-- p62: String = "route"
-- p63: Int64 = "1700000000000000000"
-- p64: Int64 = "1700001800000000000"
