SELECT toUInt64(count() - uniqExact(cityHash64(TraceId, SpanId))) AS duplicates
FROM {tracesTable:Identifier}
WHERE Timestamp >= fromUnixTimestamp64Nano({p0:Int64}) AND Timestamp < fromUnixTimestamp64Nano({p1:Int64})

-- p0: Int64 = "1700000000000000000"
-- p1: Int64 = "1700001800000000000"
