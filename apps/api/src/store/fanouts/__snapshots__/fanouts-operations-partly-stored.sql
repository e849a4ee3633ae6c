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
ts_spans AS /* materialize */ (
  SELECT
    cityHash64(TraceId, SpanId) AS key,
    cityHash64(TraceId, ParentSpanId) AS parentKey,
    TraceId AS traceId, SpanId AS spanId, ParentSpanId AS parentSpanId,
    toUInt8(multiIf(SpanKind IN ({p4:String}, {p5:String}), {p6:Int64}, SpanKind IN ({p7:String}, {p8:String}), {p9:Int64},
      SpanKind IN ({p10:String}, {p11:String}), {p12:Int64}, SpanKind IN ({p13:String}, {p14:String}), {p15:Int64},
      SpanKind IN ({p16:String}, {p17:String}), {p18:Int64}, 0)) AS kind,
    kind = {p19:Int64} AND (((SpanAttributes[{p20:String}] != '' OR SpanAttributes[{p21:String}] != '') AND (SpanAttributes[{p22:String}] != '' OR SpanAttributes[{p23:String}] != '' OR SpanAttributes[{p24:String}] != '' OR SpanAttributes[{p25:String}] != '')) OR SpanAttributes[{p26:String}] != '' OR SpanAttributes[{p27:String}] != '' OR SpanAttributes[{p28:String}] != '' OR SpanAttributes[{p29:String}] != '') AS clientAttrs,
    kind IN ({p30:Int64}, {p31:Int64}) OR clientAttrs AS isCallSpan,
    ServiceName AS service, SpanName AS name,
    toUnixTimestamp64Nano(Timestamp) AS startNs, toInt64(Duration) AS durationNs,
    multiIf(ResourceAttributes[{p32:String}] != '', ResourceAttributes[{p33:String}], ResourceAttributes[{p34:String}] != '', ResourceAttributes[{p35:String}], ResourceAttributes[{p36:String}] != '', ResourceAttributes[{p37:String}], ResourceAttributes[{p38:String}] != '', ResourceAttributes[{p39:String}], '') AS host,
    ResourceAttributes[{p40:String}] AS mode,
    if(isCallSpan, SpanAttributes[{p41:String}], '') AS peerService,
    if(isCallSpan, SpanAttributes[{p42:String}], '') AS serverAddress,
    mapContains(SpanAttributes, {p43:String}) AS background
  FROM {tracesTable:Identifier}
  WHERE Timestamp >= fromUnixTimestamp64Nano({p44:Int64}) AND Timestamp < fromUnixTimestamp64Nano({p45:Int64})
    AND cityHash64(TraceId) IN (SELECT cityHash64(TraceId) FROM {tracesTable:Identifier} WHERE Timestamp >= fromUnixTimestamp64Nano({p46:Int64}) AND Timestamp < fromUnixTimestamp64Nano({p47:Int64}))
  LIMIT 1 BY key
),
ts_wrappers AS /* materialize */ (
  SELECT key, parentKey AS upKey, parentSpanId AS upSpanId, toUInt8(1) AS isWrapper
  FROM ts_spans
  WHERE kind = {p48:Int64} AND NOT clientAttrs
    AND key IN (SELECT parentKey FROM ts_spans WHERE parentSpanId != '' GROUP BY parentKey HAVING count() = 1)
),
ts_answers AS (
  SELECT parentKey AS key, toUInt32(count()) AS answers,
    argMin(service, (startNs, spanId)) AS answerService, argMin(name, (startNs, spanId)) AS answerName,
    argMin(host, (startNs, spanId)) AS answerHost, argMin(mode, (startNs, spanId)) AS answerMode,
    toUInt32(countIf(kind = {p49:Int64})) AS servers,
    minIf(startNs, kind = {p50:Int64}) AS serverStartNs,
    maxIf(startNs + durationNs, kind = {p51:Int64}) AS serverEndNs
  FROM ts_spans
  WHERE kind IN ({p52:Int64}, {p53:Int64}) AND parentSpanId != ''
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
      OR (c.kind = {p54:Int64} AND c.parentKey NOT IN (SELECT key FROM ts_spans WHERE isCallSpan))
      OR (c.kind = {p55:Int64} AND c.key NOT IN (SELECT key FROM ts_wrappers)))
),
calls AS (
  SELECT h.traceId AS traceId, h.callerKey AS callerKey, h.callerSpanId AS callerSpanId,
    p.service AS callerService, p.name AS callerOperation,
    p.startNs AS callerStartNs, p.durationNs AS callerDurationNs,
    h.spanId AS spanId, h.kind AS kind, h.isCallSpan AS isCallSpan,
    if(h.isCallSpan AND a.answers > 0 AND NOT (h.kind = 4 AND (h.peerService != '' OR h.serverAddress != '')), a.answerService, if(h.isCallSpan, if(h.peerService != '', h.peerService, h.serverAddress), h.service)) AS leafService,
    if(h.isCallSpan AND a.answers > 0 AND NOT (h.kind = 4 AND (h.peerService != '' OR h.serverAddress != '')), a.answerName, h.name) AS leafOperation,
    h.startNs AS startNs, h.durationNs AS durationNs, h.startNs + h.durationNs AS endNs,
    multiIf(h.isCallSpan AND a.answers > 0 AND NOT (h.kind = 4 AND (h.peerService != '' OR h.serverAddress != '')), if(a.answerHost != '', a.answerHost, {p56:String}),
      h.isCallSpan, if(h.serverAddress != '', h.serverAddress, {p57:String}),
      if(h.host != '', h.host, {p58:String})) AS host,
    multiIf(h.isCallSpan AND a.answers > 0 AND NOT (h.kind = 4 AND (h.peerService != '' OR h.serverAddress != '')), if(a.answerMode != '', a.answerMode, {p59:String}),
      h.isCallSpan, {p60:String}, if(h.mode != '', h.mode, {p61:String})) AS mode,
    if(h.host != '', h.host, {p62:String}) AS clientHost,
    if(h.isCallSpan, a.answers, toUInt32(0)) AS answers,
    if(h.isCallSpan AND a.servers > 0, greatest(h.startNs - a.serverStartNs, a.serverEndNs - endNs, toInt64(0)), toInt64(0)) AS skewNs,
    h.wrappers AS wrappers
  FROM ts_hops AS h
  ANY LEFT JOIN ts_answers AS a ON h.key = a.key
  ANY LEFT JOIN ts_spans AS p ON h.callerKey = p.key
  WHERE h.isCallSpan OR h.kind = {p63:Int64} OR (p.key != 0 AND p.service != h.service)
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
      concurrency = width OR arrayMax(starts) - fanoutStartNs <= {p64:Int64}, 'parallel', 'pool') AS structure
  FROM calls
  GROUP BY callerKey, leafService, leafOperation
  HAVING fanoutStartNs >= {p65:Int64} AND fanoutStartNs < {p66:Int64}
),
live_fanouts AS (
  SELECT fanoutKey, leafService, leafOperation, traceId, parentSpanId, parentService, parentOperation,
    keptCalls, width, fanoutStartNs, concurrency, structure
  FROM request_edges
  WHERE structure IN ('parallel', 'pool')
),
live_named_fanouts AS (
  SELECT * FROM live_fanouts
),
fanouts_in_scope AS (
  SELECT leafService, leafOperation, parentService, parentOperation, traceId, parentSpanId, width, fanoutStartNs, keptCalls, concurrency, structure FROM stored_fanouts
  UNION ALL
  SELECT leafService, leafOperation, parentService, parentOperation, traceId, parentSpanId, width, fanoutStartNs, keptCalls, concurrency, structure FROM live_named_fanouts
),
per_fanout AS (
  SELECT parentService, parentOperation, leafService, leafOperation, width,
    arraySort(arrayMap(call -> toFloat64(call.1 - fanoutStartNs) / 1e6 + toFloat64(call.2) / 1e6, keptCalls)) AS finishesMs,
    arrayMap(call -> toFloat64(call.2) / 1e6, keptCalls) AS callDurationsMs,
    finishesMs[intDiv(toUInt64(murmurHash3_32(concat(toString({p67:UInt32}), ':', traceId, ':', parentSpanId))) * width, 4294967296) + 1] AS oneLeafMs,
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
  WHERE parentService = {p68:String}
  GROUP BY parentService, parentOperation, leafService, leafOperation
)
SELECT parentService, parentOperation, leafService, leafOperation, requests, widthP50, widthMax,
  oneLeaf, p95Leaves, allLeaves, {p69:Float64} AS thresholdMs,
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
-- p1: Int64 = "1700000600000000000"
-- p2: Array(String) = ["2833333"]
-- p3: Array(String) = ["17"]
-- p4: String = "Server"
-- p5: String = "SPAN_KIND_SERVER"
-- p6: Int64 = 1
-- p7: String = "Consumer"
-- p8: String = "SPAN_KIND_CONSUMER"
-- p9: Int64 = 2
-- p10: String = "Client"
-- p11: String = "SPAN_KIND_CLIENT"
-- p12: Int64 = 3
-- p13: String = "Producer"
-- p14: String = "SPAN_KIND_PRODUCER"
-- p15: Int64 = 4
-- p16: String = "Internal"
-- p17: String = "SPAN_KIND_INTERNAL"
-- p18: Int64 = 5
-- p19: Int64 = 5
-- p20: String = "http.request.method"
-- p21: String = "http.method"
-- p22: String = "url.full"
-- p23: String = "http.url"
-- p24: String = "server.address"
-- p25: String = "peer.service"
-- p26: String = "rpc.system"
-- p27: String = "db.system"
-- p28: String = "messaging.system"
-- p29: String = "peer.service"
-- p30: Int64 = 3
-- p31: Int64 = 4
-- p32: String = "host.name"
-- p33: String = "host.name"
-- p34: String = "k8s.node.name"
-- p35: String = "k8s.node.name"
-- p36: String = "host.id"
-- p37: String = "host.id"
-- p38: String = "service.instance.id"
-- p39: String = "service.instance.id"
-- p40: String = "host.sharing_mode"
-- p41: String = "peer.service"
-- p42: String = "server.address"
-- p43: String = "background.activity"
-- p44: Int64 = "1700000540000000000"
-- p45: Int64 = "1700001860000000000"
-- p46: Int64 = "1700000600000000000"
-- p47: Int64 = "1700001800000000000"
-- p48: Int64 = 5
-- p49: Int64 = 1
-- p50: Int64 = 1
-- p51: Int64 = 1
-- p52: Int64 = 1
-- p53: Int64 = 2
-- p54: Int64 = 1
-- p55: Int64 = 5
-- p56: String = "unknown"
-- p57: String = "unknown"
-- p58: String = "unknown"
-- p59: String = "unknown"
-- p60: String = "unknown"
-- p61: String = "unknown"
-- p62: String = "unknown"
-- p63: Int64 = 1
-- p64: Int64 = "1000000"
-- p65: Int64 = "1700000600000000000"
-- p66: Int64 = "1700001800000000000"
-- p67: UInt32 = 11
-- p68: String = "front"
-- p69: Float64 = 15
