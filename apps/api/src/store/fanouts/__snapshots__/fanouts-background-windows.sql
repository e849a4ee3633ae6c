SELECT
  if(resourceHost != '', resourceHost, {p0:String}) AS host,
  toFloat64(toUnixTimestamp64Nano(Timestamp) - {p1:Int64}) AS start,
  start + toFloat64(Duration) AS end,
  SpanAttributes[{p2:String}] AS kind,
  multiIf(ResourceAttributes[{p3:String}] != '', ResourceAttributes[{p4:String}], ResourceAttributes[{p5:String}] != '', ResourceAttributes[{p6:String}], ResourceAttributes[{p7:String}] != '', ResourceAttributes[{p8:String}], ResourceAttributes[{p9:String}] != '', ResourceAttributes[{p10:String}], '') AS resourceHost
FROM {tracesTable:Identifier}
WHERE Timestamp >= fromUnixTimestamp64Nano({p11:Int64}) AND Timestamp < fromUnixTimestamp64Nano({p12:Int64}) AND mapContains(SpanAttributes, {p13:String}) AND SpanAttributes[{p14:String}] != ''

-- p0: String = "unknown"
-- p1: Int64 = "1699999940000000000"
-- p2: String = "background.activity"
-- p3: String = "host.name"
-- p4: String = "host.name"
-- p5: String = "k8s.node.name"
-- p6: String = "k8s.node.name"
-- p7: String = "host.id"
-- p8: String = "host.id"
-- p9: String = "service.instance.id"
-- p10: String = "service.instance.id"
-- p11: Int64 = "1699996400000000000"
-- p12: Int64 = "1700001860000000000"
-- p13: String = "background.activity"
-- p14: String = "background.activity"
