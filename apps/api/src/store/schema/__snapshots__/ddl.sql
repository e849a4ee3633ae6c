-- DDL for database default

-- bootstrap
CREATE TABLE IF NOT EXISTS default.tailscope_migrations (
      version UInt32, name String, appliedAt DateTime64(3)
    ) ENGINE = MergeTree() ORDER BY version;

-- migration 1: otel_traces with trace-id time-range table and view
CREATE TABLE IF NOT EXISTS default.otel_traces (
    Timestamp DateTime64(9) CODEC(Delta(8), ZSTD(1)),
    TraceId String CODEC(ZSTD(1)),
    SpanId String CODEC(ZSTD(1)),
    ParentSpanId String CODEC(ZSTD(1)),
    TraceState String CODEC(ZSTD(1)),
    SpanName LowCardinality(String) CODEC(ZSTD(1)),
    SpanKind LowCardinality(String) CODEC(ZSTD(1)),
    ServiceName LowCardinality(String) CODEC(ZSTD(1)),
    ResourceAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    ScopeName String CODEC(ZSTD(1)),
    ScopeVersion String CODEC(ZSTD(1)),
    SpanAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    Duration UInt64 CODEC(T64, ZSTD(1)),
    StatusCode LowCardinality(String) CODEC(ZSTD(1)),
    StatusMessage String CODEC(ZSTD(1)),
    Events Nested (
        Timestamp DateTime64(9),
        Name LowCardinality(String),
        Attributes Map(LowCardinality(String), String)
    ) CODEC(ZSTD(1)),
    Links Nested (
        TraceId String,
        SpanId String,
        TraceState String,
        Attributes Map(LowCardinality(String), String)
    ) CODEC(ZSTD(1)),
    ResourceAttributeItems Array(String) ALIAS arrayMap(kv -> concat(kv.1, '=', kv.2), CAST(ResourceAttributes, 'Array(Tuple(String, String))')),
    SpanAttributeItems Array(String) ALIAS arrayMap(kv -> concat(kv.1, '=', kv.2), CAST(SpanAttributes, 'Array(Tuple(String, String))')),
    INDEX idx_trace_id TraceId TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_res_attr_key mapKeys(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_res_attr_value mapValues(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_span_attr_key mapKeys(SpanAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_span_attr_value mapValues(SpanAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_duration Duration TYPE minmax GRANULARITY 1,
    INDEX idx_lower_span_name lower(SpanName) TYPE tokenbf_v1(32768, 3, 0) GRANULARITY 8
) ENGINE = MergeTree()
PARTITION BY toDate(Timestamp)
PRIMARY KEY (ServiceName, SpanName, toDateTime(Timestamp))
ORDER BY (ServiceName, SpanName, toDateTime(Timestamp), Timestamp)
SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1;

-- migration 1: otel_traces with trace-id time-range table and view
CREATE TABLE IF NOT EXISTS default.otel_traces_trace_id_ts (
    TraceId String CODEC(ZSTD(1)),
    Start SimpleAggregateFunction(min, DateTime) CODEC(ZSTD(1)),
    End SimpleAggregateFunction(max, DateTime) CODEC(ZSTD(1))
) ENGINE = AggregatingMergeTree()
PARTITION BY toStartOfWeek(Start)
ORDER BY (TraceId)
SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1;

-- migration 1: otel_traces with trace-id time-range table and view
CREATE MATERIALIZED VIEW IF NOT EXISTS default.otel_traces_trace_id_ts_mv
TO default.otel_traces_trace_id_ts
AS SELECT
    TraceId,
    min(Timestamp) as Start,
    max(Timestamp) as End
FROM default.otel_traces
WHERE TraceId != ''
GROUP BY TraceId;

-- migration 2: tailscope_typed_attributes
CREATE TABLE IF NOT EXISTS default.tailscope_typed_attributes (
    TraceId String CODEC(ZSTD(1)),
    SpanId String CODEC(ZSTD(1)),
    Timestamp DateTime64(9) CODEC(Delta(8), ZSTD(1)),
    Attributes Map(LowCardinality(String), String) CODEC(ZSTD(1))
  ) ENGINE = MergeTree()
  PARTITION BY toDate(Timestamp)
  ORDER BY (TraceId, SpanId)
  SETTINGS index_granularity = 8192;

-- migration 3: tailscope_fanouts and tailscope_fanout_chunks (stored fan-outs)
CREATE TABLE IF NOT EXISTS default.tailscope_fanouts (
    chunk Int64, version UInt64, s0 Int64,
    leafService LowCardinality(String), leafOperation LowCardinality(String),
    parentService LowCardinality(String), parentOperation LowCardinality(String),
    fk UInt64, traceId String, parentSpanId String, n UInt32,
    startOffsetNs Array(Int64) CODEC(ZSTD(1)), durationNs Array(Int64) CODEC(ZSTD(1)),
    hosts Array(LowCardinality(String)), modes Array(LowCardinality(String))
  ) ENGINE = MergeTree() PARTITION BY intDiv(chunk, 144) ORDER BY (leafService, leafOperation, s0);

-- migration 3: tailscope_fanouts and tailscope_fanout_chunks (stored fan-outs)
CREATE TABLE IF NOT EXISTS default.tailscope_fanout_chunks (
    chunk Int64, spans UInt64, version UInt64
  ) ENGINE = ReplacingMergeTree(version) ORDER BY chunk;

-- migration 4: tailscope_ingest_batches: the store-side record of ingest batches
CREATE TABLE IF NOT EXISTS default.tailscope_ingest_batches (
    Dir String, First UInt64, Last UInt64, State LowCardinality(String), At DateTime64(6)
) ENGINE = MergeTree() ORDER BY (Dir, At) TTL toDateTime(At) + INTERVAL 30 DAY;

-- migration 5: tailscope_fanouts: concurrency and structure; chunks detected again on calls
ALTER TABLE default.tailscope_fanouts ADD COLUMN IF NOT EXISTS concurrency UInt32, ADD COLUMN IF NOT EXISTS structure LowCardinality(String);

-- migration 5: tailscope_fanouts: concurrency and structure; chunks detected again on calls
CREATE TABLE IF NOT EXISTS default.tailscope_edges (
    chunk Int64, version UInt64, s0 Int64,
    parentService LowCardinality(String), parentOperation LowCardinality(String),
    leafService LowCardinality(String), leafOperation LowCardinality(String),
    width UInt32, concurrency UInt32, structure LowCardinality(String),
    durationsNs Array(Int64) CODEC(ZSTD(1)), waitsNs Array(Int64) CODEC(ZSTD(1)),
    spanNs Int64, callerDurationNs Int64, wrappedCalls UInt32,
    skewed Array(Tuple(LowCardinality(String), LowCardinality(String), Int64))
  ) ENGINE = MergeTree() PARTITION BY intDiv(chunk, 144) ORDER BY (parentService, leafService, s0);

-- migration 5: tailscope_fanouts: concurrency and structure; chunks detected again on calls
TRUNCATE TABLE IF EXISTS default.tailscope_fanouts;

-- migration 5: tailscope_fanouts: concurrency and structure; chunks detected again on calls
TRUNCATE TABLE IF EXISTS default.tailscope_fanout_chunks;

-- migration 6: tailscope_call_buckets and tailscope_call_bucket_chunks (stored episode series)
CREATE TABLE IF NOT EXISTS default.tailscope_call_buckets (
    chunk Int64, version UInt64, bucket Int64,
    kind LowCardinality(String), service LowCardinality(String), host LowCardinality(String),
    parentService LowCardinality(String), parentOperation LowCardinality(String),
    operation LowCardinality(String),
    calls UInt64, weightedCalls Float64,
    bins Array(UInt16) CODEC(ZSTD(1)), binCalls Array(UInt64) CODEC(ZSTD(1)),
    binWeights Array(Float64) CODEC(ZSTD(1))
  ) ENGINE = MergeTree() PARTITION BY intDiv(chunk, 144) ORDER BY (service, kind, bucket);

-- migration 6: tailscope_call_buckets and tailscope_call_bucket_chunks (stored episode series)
CREATE TABLE IF NOT EXISTS default.tailscope_call_bucket_chunks (
    chunk Int64, spans UInt64, version UInt64
  ) ENGINE = ReplacingMergeTree(version) ORDER BY chunk;

-- migration 7: tailscope_chunk_duplicates (extra span copies per stored chunk)
CREATE TABLE IF NOT EXISTS default.tailscope_chunk_duplicates (
    chunk Int64, version UInt64, duplicates UInt64
  ) ENGINE = ReplacingMergeTree(version) ORDER BY chunk;

-- migration 8: tailscope_call_bucket_open (stored episode series of the open chunk, per 10 s bucket)
CREATE TABLE IF NOT EXISTS default.tailscope_call_bucket_open (
    bucket Int64, spans UInt64, windowSpans UInt64, version UInt64
  ) ENGINE = ReplacingMergeTree(version) ORDER BY bucket;

-- migration 9: otel_metrics_gauge, _sum, _histogram, _exponential_histogram, _summary (exporter tables)
CREATE TABLE IF NOT EXISTS default.otel_metrics_gauge (
    ResourceAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    ResourceSchemaUrl String CODEC(ZSTD(1)),
    ScopeName String CODEC(ZSTD(1)),
    ScopeVersion String CODEC(ZSTD(1)),
    ScopeAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    ScopeDroppedAttrCount UInt32 CODEC(ZSTD(1)),
    ScopeSchemaUrl String CODEC(ZSTD(1)),
    ServiceName LowCardinality(String) CODEC(ZSTD(1)),
    MetricName String CODEC(ZSTD(1)),
    MetricDescription String CODEC(ZSTD(1)),
    MetricUnit String CODEC(ZSTD(1)),
    Attributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    StartTimeUnix DateTime64(9) CODEC(Delta, ZSTD(1)),
    TimeUnix DateTime64(9) CODEC(Delta, ZSTD(1)),
    Value Float64 CODEC(ZSTD(1)),
    Flags UInt32 CODEC(ZSTD(1)),
    Exemplars Nested (
        FilteredAttributes Map(LowCardinality(String), String),
        TimeUnix DateTime64(9),
        Value Float64,
        SpanId String,
        TraceId String
    ) CODEC(ZSTD(1)),
    INDEX idx_res_attr_key mapKeys(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_res_attr_value mapValues(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_scope_attr_key mapKeys(ScopeAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_scope_attr_value mapValues(ScopeAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_attr_key mapKeys(Attributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_attr_value mapValues(Attributes) TYPE bloom_filter(0.01) GRANULARITY 1
) ENGINE = MergeTree()
PARTITION BY toDate(TimeUnix)
ORDER BY (ServiceName, MetricName, Attributes, toUnixTimestamp64Nano(TimeUnix))
SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1;

-- migration 9: otel_metrics_gauge, _sum, _histogram, _exponential_histogram, _summary (exporter tables)
CREATE TABLE IF NOT EXISTS default.otel_metrics_sum (
    ResourceAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    ResourceSchemaUrl String CODEC(ZSTD(1)),
    ScopeName String CODEC(ZSTD(1)),
    ScopeVersion String CODEC(ZSTD(1)),
    ScopeAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    ScopeDroppedAttrCount UInt32 CODEC(ZSTD(1)),
    ScopeSchemaUrl String CODEC(ZSTD(1)),
    ServiceName LowCardinality(String) CODEC(ZSTD(1)),
    MetricName String CODEC(ZSTD(1)),
    MetricDescription String CODEC(ZSTD(1)),
    MetricUnit String CODEC(ZSTD(1)),
    Attributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    StartTimeUnix DateTime64(9) CODEC(Delta, ZSTD(1)),
    TimeUnix DateTime64(9) CODEC(Delta, ZSTD(1)),
    Value Float64 CODEC(ZSTD(1)),
    Flags UInt32 CODEC(ZSTD(1)),
    Exemplars Nested (
        FilteredAttributes Map(LowCardinality(String), String),
        TimeUnix DateTime64(9),
        Value Float64,
        SpanId String,
        TraceId String
    ) CODEC(ZSTD(1)),
    AggregationTemporality Int32 CODEC(ZSTD(1)),
    IsMonotonic Boolean CODEC(Delta, ZSTD(1)),
    INDEX idx_res_attr_key mapKeys(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_res_attr_value mapValues(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_scope_attr_key mapKeys(ScopeAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_scope_attr_value mapValues(ScopeAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_attr_key mapKeys(Attributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_attr_value mapValues(Attributes) TYPE bloom_filter(0.01) GRANULARITY 1
) ENGINE = MergeTree()
PARTITION BY toDate(TimeUnix)
ORDER BY (ServiceName, MetricName, Attributes, toUnixTimestamp64Nano(TimeUnix))
SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1;

-- migration 9: otel_metrics_gauge, _sum, _histogram, _exponential_histogram, _summary (exporter tables)
CREATE TABLE IF NOT EXISTS default.otel_metrics_histogram (
    ResourceAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    ResourceSchemaUrl String CODEC(ZSTD(1)),
    ScopeName String CODEC(ZSTD(1)),
    ScopeVersion String CODEC(ZSTD(1)),
    ScopeAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    ScopeDroppedAttrCount UInt32 CODEC(ZSTD(1)),
    ScopeSchemaUrl String CODEC(ZSTD(1)),
    ServiceName LowCardinality(String) CODEC(ZSTD(1)),
    MetricName String CODEC(ZSTD(1)),
    MetricDescription String CODEC(ZSTD(1)),
    MetricUnit String CODEC(ZSTD(1)),
    Attributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    StartTimeUnix DateTime64(9) CODEC(Delta, ZSTD(1)),
    TimeUnix DateTime64(9) CODEC(Delta, ZSTD(1)),
    Count UInt64 CODEC(Delta, ZSTD(1)),
    Sum Float64 CODEC(ZSTD(1)),
    BucketCounts Array(UInt64) CODEC(ZSTD(1)),
    ExplicitBounds Array(Float64) CODEC(ZSTD(1)),
    Exemplars Nested (
        FilteredAttributes Map(LowCardinality(String), String),
        TimeUnix DateTime64(9),
        Value Float64,
        SpanId String,
        TraceId String
    ) CODEC(ZSTD(1)),
    Flags UInt32 CODEC(ZSTD(1)),
    Min Float64 CODEC(ZSTD(1)),
    Max Float64 CODEC(ZSTD(1)),
    AggregationTemporality Int32 CODEC(ZSTD(1)),
    INDEX idx_res_attr_key mapKeys(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_res_attr_value mapValues(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_scope_attr_key mapKeys(ScopeAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_scope_attr_value mapValues(ScopeAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_attr_key mapKeys(Attributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_attr_value mapValues(Attributes) TYPE bloom_filter(0.01) GRANULARITY 1
) ENGINE = MergeTree()
PARTITION BY toDate(TimeUnix)
ORDER BY (ServiceName, MetricName, Attributes, toUnixTimestamp64Nano(TimeUnix))
SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1;

-- migration 9: otel_metrics_gauge, _sum, _histogram, _exponential_histogram, _summary (exporter tables)
CREATE TABLE IF NOT EXISTS default.otel_metrics_exponential_histogram (
    ResourceAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    ResourceSchemaUrl String CODEC(ZSTD(1)),
    ScopeName String CODEC(ZSTD(1)),
    ScopeVersion String CODEC(ZSTD(1)),
    ScopeAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    ScopeDroppedAttrCount UInt32 CODEC(ZSTD(1)),
    ScopeSchemaUrl String CODEC(ZSTD(1)),
    ServiceName LowCardinality(String) CODEC(ZSTD(1)),
    MetricName String CODEC(ZSTD(1)),
    MetricDescription String CODEC(ZSTD(1)),
    MetricUnit String CODEC(ZSTD(1)),
    Attributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    StartTimeUnix DateTime64(9) CODEC(Delta, ZSTD(1)),
    TimeUnix DateTime64(9) CODEC(Delta, ZSTD(1)),
    Count UInt64 CODEC(Delta, ZSTD(1)),
    Sum Float64 CODEC(ZSTD(1)),
    Scale Int32 CODEC(ZSTD(1)),
    ZeroCount UInt64 CODEC(ZSTD(1)),
    PositiveOffset Int32 CODEC(ZSTD(1)),
    PositiveBucketCounts Array(UInt64) CODEC(ZSTD(1)),
    NegativeOffset Int32 CODEC(ZSTD(1)),
    NegativeBucketCounts Array(UInt64) CODEC(ZSTD(1)),
    Exemplars Nested (
        FilteredAttributes Map(LowCardinality(String), String),
        TimeUnix DateTime64(9),
        Value Float64,
        SpanId String,
        TraceId String
    ) CODEC(ZSTD(1)),
    Flags UInt32 CODEC(ZSTD(1)),
    Min Float64 CODEC(ZSTD(1)),
    Max Float64 CODEC(ZSTD(1)),
    AggregationTemporality Int32 CODEC(ZSTD(1)),
    INDEX idx_res_attr_key mapKeys(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_res_attr_value mapValues(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_scope_attr_key mapKeys(ScopeAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_scope_attr_value mapValues(ScopeAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_attr_key mapKeys(Attributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_attr_value mapValues(Attributes) TYPE bloom_filter(0.01) GRANULARITY 1
) ENGINE = MergeTree()
PARTITION BY toDate(TimeUnix)
ORDER BY (ServiceName, MetricName, Attributes, toUnixTimestamp64Nano(TimeUnix))
SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1;

-- migration 9: otel_metrics_gauge, _sum, _histogram, _exponential_histogram, _summary (exporter tables)
CREATE TABLE IF NOT EXISTS default.otel_metrics_summary (
    ResourceAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    ResourceSchemaUrl String CODEC(ZSTD(1)),
    ScopeName String CODEC(ZSTD(1)),
    ScopeVersion String CODEC(ZSTD(1)),
    ScopeAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    ScopeDroppedAttrCount UInt32 CODEC(ZSTD(1)),
    ScopeSchemaUrl String CODEC(ZSTD(1)),
    ServiceName LowCardinality(String) CODEC(ZSTD(1)),
    MetricName String CODEC(ZSTD(1)),
    MetricDescription String CODEC(ZSTD(1)),
    MetricUnit String CODEC(ZSTD(1)),
    Attributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    StartTimeUnix DateTime64(9) CODEC(Delta, ZSTD(1)),
    TimeUnix DateTime64(9) CODEC(Delta, ZSTD(1)),
    Count UInt64 CODEC(Delta, ZSTD(1)),
    Sum Float64 CODEC(ZSTD(1)),
    ValueAtQuantiles Nested (
        Quantile Float64,
        Value Float64
    ) CODEC(ZSTD(1)),
    Flags UInt32 CODEC(ZSTD(1)),
    INDEX idx_res_attr_key mapKeys(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_res_attr_value mapValues(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_scope_attr_key mapKeys(ScopeAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_scope_attr_value mapValues(ScopeAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_attr_key mapKeys(Attributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_attr_value mapValues(Attributes) TYPE bloom_filter(0.01) GRANULARITY 1
) ENGINE = MergeTree()
PARTITION BY toDate(TimeUnix)
ORDER BY (ServiceName, MetricName, Attributes, toUnixTimestamp64Nano(TimeUnix))
SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1;

-- migration 10: tailscope_fanout_open (stored fan-outs and edges of the open chunk, per 10 s bucket)
CREATE TABLE IF NOT EXISTS default.tailscope_fanout_open (
    bucket Int64, spans UInt64, windowSpans UInt64, duplicates UInt64, version UInt64
  ) ENGINE = ReplacingMergeTree(version) ORDER BY bucket;

-- migration 11: tailscope_metric_windows and its views (evidence metrics per 10 s bucket)
CREATE TABLE IF NOT EXISTS default.tailscope_metric_windows (
    host String CODEC(ZSTD(1)),
    signal LowCardinality(String) CODEC(ZSTD(1)),
    metric LowCardinality(String) CODEC(ZSTD(1)),
    series UInt64 CODEC(ZSTD(1)),
    kind UInt8 CODEC(ZSTD(1)),
    bucket Int64 CODEC(Delta, ZSTD(1)),
    last SimpleAggregateFunction(max, Tuple(Int64, Float64)) CODEC(ZSTD(1)),
    total SimpleAggregateFunction(sum, Float64) CODEC(ZSTD(1)),
    points SimpleAggregateFunction(sum, UInt64) CODEC(ZSTD(1))
) ENGINE = AggregatingMergeTree()
PARTITION BY toDate(toDateTime(bucket * 10))
ORDER BY (host, signal, metric, series, kind, bucket)
SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1;

-- migration 11: tailscope_metric_windows and its views (evidence metrics per 10 s bucket)
DROP VIEW IF EXISTS default.tailscope_metric_windows_gauge_mv;

-- migration 11: tailscope_metric_windows and its views (evidence metrics per 10 s bucket)
DROP VIEW IF EXISTS default.tailscope_metric_windows_sum_mv;

-- migration 11: tailscope_metric_windows and its views (evidence metrics per 10 s bucket)
DROP VIEW IF EXISTS default.tailscope_metric_windows_histogram_mv;

-- migration 11: tailscope_metric_windows and its views (evidence metrics per 10 s bucket)
TRUNCATE TABLE IF EXISTS default.tailscope_metric_windows;

-- migration 11: tailscope_metric_windows and its views (evidence metrics per 10 s bucket)
INSERT INTO default.tailscope_metric_windows SELECT host, multiIf(MetricName IN ['process.cpu.utilization', 'k8s.pod.cpu_limit_utilization', 'k8s.container.cpu_limit_utilization'], 'cpu-saturation', (MetricName = 'system.cpu.utilization' AND (Attributes['cpu.mode'] = 'idle' OR Attributes['state'] = 'idle' OR Attributes['system.cpu.state'] = 'idle')), 'host-idle', MetricName IN ['container.cpu.usage'], 'container-cpu-usage', MetricName IN ['k8s.container.cpu_limit'], 'container-cpu-limit', MetricName IN ['k8s.container.restarts'], 'memory-pressure', 'neighbour-pressure') AS signal, MetricName AS metric,
      cityHash64(arrayDistinct(arrayFilter(x -> x != '', [ResourceAttributes['host.name'], ResourceAttributes['k8s.node.name'], ResourceAttributes['k8s.pod.name'], ResourceAttributes['container.id'], ResourceAttributes['host.id'], ResourceAttributes['service.instance.id']])), MetricName, ServiceName, Attributes) AS series,
      toUInt8(if(MetricName IN ['k8s.container.restarts'], 2, 0)) AS kind, intDiv(toUnixTimestamp64Nano(toDateTime64(TimeUnix, 9)), 10000000000) AS bucket,
      max((toUnixTimestamp64Nano(toDateTime64(TimeUnix, 9)), toFloat64(Value))) AS last,
      sum(toFloat64(Value)) AS total, count() AS points
    FROM default.otel_metrics_gauge ARRAY JOIN arrayDistinct(arrayFilter(x -> x != '', [ResourceAttributes['host.name'], ResourceAttributes['k8s.node.name'], ResourceAttributes['k8s.pod.name'], ResourceAttributes['container.id'], ResourceAttributes['host.id'], ResourceAttributes['service.instance.id']])) AS host
    WHERE (MetricName IN ['process.cpu.utilization', 'k8s.pod.cpu_limit_utilization', 'k8s.container.cpu_limit_utilization'] OR (MetricName = 'system.cpu.utilization' AND ((Attributes['cpu.mode'] = 'steal' OR Attributes['state'] = 'steal' OR Attributes['system.cpu.state'] = 'steal') OR (MetricName = 'system.cpu.utilization' AND (Attributes['cpu.mode'] = 'idle' OR Attributes['state'] = 'idle' OR Attributes['system.cpu.state'] = 'idle')))) OR MetricName IN ['container.cpu.usage', 'k8s.container.cpu_limit', 'k8s.container.restarts']) AND (1)
    GROUP BY host, signal, metric, series, kind, bucket;

-- migration 11: tailscope_metric_windows and its views (evidence metrics per 10 s bucket)
INSERT INTO default.tailscope_metric_windows SELECT host, multiIf(MetricName IN ['system.network.errors', 'system.network.dropped'], 'network', MetricName IN ['container.cpu.throttling_data.throttled_time'], 'throttling', MetricName IN ['system.paging.faults', 'k8s.container.restart.count'], 'memory-pressure', MetricName IN ['dotnet.gc.pause.time', 'process.runtime.go.gc.pause_total_ns'], 'gc-pause', MetricName IN ['k8s.container.cpu.limit'], 'container-cpu-limit', 'neighbour-pressure') AS signal, MetricName AS metric,
      cityHash64(arrayDistinct(arrayFilter(x -> x != '', [ResourceAttributes['host.name'], ResourceAttributes['k8s.node.name'], ResourceAttributes['k8s.pod.name'], ResourceAttributes['container.id'], ResourceAttributes['host.id'], ResourceAttributes['service.instance.id']])), MetricName, ServiceName, Attributes) AS series,
      toUInt8(multiIf(MetricName IN ['k8s.container.cpu.limit'], 0, AggregationTemporality = 1, 1, 2)) AS kind, intDiv(toUnixTimestamp64Nano(toDateTime64(TimeUnix, 9)), 10000000000) AS bucket,
      max((toUnixTimestamp64Nano(toDateTime64(TimeUnix, 9)), toFloat64(if(MetricName IN ['process.runtime.go.gc.pause_ns', 'process.runtime.go.gc.pause_total_ns'], Value / 1e9, Value)))) AS last,
      sum(toFloat64(if(MetricName IN ['process.runtime.go.gc.pause_ns', 'process.runtime.go.gc.pause_total_ns'], Value / 1e9, Value))) AS total, count() AS points
    FROM default.otel_metrics_sum ARRAY JOIN arrayDistinct(arrayFilter(x -> x != '', [ResourceAttributes['host.name'], ResourceAttributes['k8s.node.name'], ResourceAttributes['k8s.pod.name'], ResourceAttributes['container.id'], ResourceAttributes['host.id'], ResourceAttributes['service.instance.id']])) AS host
    WHERE (MetricName IN ['system.network.errors', 'system.network.dropped'] OR MetricName IN ['container.cpu.throttling_data.throttled_time'] OR (MetricName IN ['system.paging.faults'] AND (Attributes['type'] = 'major' OR Attributes['system.paging.type'] = 'major')) OR (MetricName = 'system.cpu.time' AND (Attributes['cpu.mode'] = 'steal' OR Attributes['state'] = 'steal' OR Attributes['system.cpu.state'] = 'steal')) OR MetricName IN ['dotnet.gc.pause.time', 'process.runtime.go.gc.pause_total_ns', 'k8s.container.cpu.limit', 'k8s.container.restart.count']) AND (1)
    GROUP BY host, signal, metric, series, kind, bucket;

-- migration 11: tailscope_metric_windows and its views (evidence metrics per 10 s bucket)
INSERT INTO default.tailscope_metric_windows SELECT host, 'gc-pause' AS signal, MetricName AS metric,
      cityHash64(arrayDistinct(arrayFilter(x -> x != '', [ResourceAttributes['host.name'], ResourceAttributes['k8s.node.name'], ResourceAttributes['k8s.pod.name'], ResourceAttributes['container.id'], ResourceAttributes['host.id'], ResourceAttributes['service.instance.id']])), MetricName, ServiceName, Attributes) AS series,
      toUInt8(if(AggregationTemporality = 1, 1, 2)) AS kind, intDiv(toUnixTimestamp64Nano(toDateTime64(TimeUnix, 9)), 10000000000) AS bucket,
      max((toUnixTimestamp64Nano(toDateTime64(TimeUnix, 9)), toFloat64(if(MetricName IN ['process.runtime.go.gc.pause_ns', 'process.runtime.go.gc.pause_total_ns'], Sum / 1e9, Sum)))) AS last,
      sum(toFloat64(if(MetricName IN ['process.runtime.go.gc.pause_ns', 'process.runtime.go.gc.pause_total_ns'], Sum / 1e9, Sum))) AS total, count() AS points
    FROM default.otel_metrics_histogram ARRAY JOIN arrayDistinct(arrayFilter(x -> x != '', [ResourceAttributes['host.name'], ResourceAttributes['k8s.node.name'], ResourceAttributes['k8s.pod.name'], ResourceAttributes['container.id'], ResourceAttributes['host.id'], ResourceAttributes['service.instance.id']])) AS host
    WHERE (MetricName IN ['v8js.gc.duration', 'jvm.gc.duration', 'go.memory.gc.pause.duration', 'process.runtime.go.gc.pause_ns']) AND (1)
    GROUP BY host, signal, metric, series, kind, bucket;

-- migration 11: tailscope_metric_windows and its views (evidence metrics per 10 s bucket)
CREATE MATERIALIZED VIEW IF NOT EXISTS default.tailscope_metric_windows_gauge_mv
TO default.tailscope_metric_windows AS SELECT host, multiIf(MetricName IN ['process.cpu.utilization', 'k8s.pod.cpu_limit_utilization', 'k8s.container.cpu_limit_utilization'], 'cpu-saturation', (MetricName = 'system.cpu.utilization' AND (Attributes['cpu.mode'] = 'idle' OR Attributes['state'] = 'idle' OR Attributes['system.cpu.state'] = 'idle')), 'host-idle', MetricName IN ['container.cpu.usage'], 'container-cpu-usage', MetricName IN ['k8s.container.cpu_limit'], 'container-cpu-limit', MetricName IN ['k8s.container.restarts'], 'memory-pressure', 'neighbour-pressure') AS signal, MetricName AS metric,
      cityHash64(arrayDistinct(arrayFilter(x -> x != '', [ResourceAttributes['host.name'], ResourceAttributes['k8s.node.name'], ResourceAttributes['k8s.pod.name'], ResourceAttributes['container.id'], ResourceAttributes['host.id'], ResourceAttributes['service.instance.id']])), MetricName, ServiceName, Attributes) AS series,
      toUInt8(if(MetricName IN ['k8s.container.restarts'], 2, 0)) AS kind, intDiv(toUnixTimestamp64Nano(toDateTime64(TimeUnix, 9)), 10000000000) AS bucket,
      max((toUnixTimestamp64Nano(toDateTime64(TimeUnix, 9)), toFloat64(Value))) AS last,
      sum(toFloat64(Value)) AS total, count() AS points
    FROM default.otel_metrics_gauge ARRAY JOIN arrayDistinct(arrayFilter(x -> x != '', [ResourceAttributes['host.name'], ResourceAttributes['k8s.node.name'], ResourceAttributes['k8s.pod.name'], ResourceAttributes['container.id'], ResourceAttributes['host.id'], ResourceAttributes['service.instance.id']])) AS host
    WHERE (MetricName IN ['process.cpu.utilization', 'k8s.pod.cpu_limit_utilization', 'k8s.container.cpu_limit_utilization'] OR (MetricName = 'system.cpu.utilization' AND ((Attributes['cpu.mode'] = 'steal' OR Attributes['state'] = 'steal' OR Attributes['system.cpu.state'] = 'steal') OR (MetricName = 'system.cpu.utilization' AND (Attributes['cpu.mode'] = 'idle' OR Attributes['state'] = 'idle' OR Attributes['system.cpu.state'] = 'idle')))) OR MetricName IN ['container.cpu.usage', 'k8s.container.cpu_limit', 'k8s.container.restarts']) AND (1)
    GROUP BY host, signal, metric, series, kind, bucket;

-- migration 11: tailscope_metric_windows and its views (evidence metrics per 10 s bucket)
CREATE MATERIALIZED VIEW IF NOT EXISTS default.tailscope_metric_windows_sum_mv
TO default.tailscope_metric_windows AS SELECT host, multiIf(MetricName IN ['system.network.errors', 'system.network.dropped'], 'network', MetricName IN ['container.cpu.throttling_data.throttled_time'], 'throttling', MetricName IN ['system.paging.faults', 'k8s.container.restart.count'], 'memory-pressure', MetricName IN ['dotnet.gc.pause.time', 'process.runtime.go.gc.pause_total_ns'], 'gc-pause', MetricName IN ['k8s.container.cpu.limit'], 'container-cpu-limit', 'neighbour-pressure') AS signal, MetricName AS metric,
      cityHash64(arrayDistinct(arrayFilter(x -> x != '', [ResourceAttributes['host.name'], ResourceAttributes['k8s.node.name'], ResourceAttributes['k8s.pod.name'], ResourceAttributes['container.id'], ResourceAttributes['host.id'], ResourceAttributes['service.instance.id']])), MetricName, ServiceName, Attributes) AS series,
      toUInt8(multiIf(MetricName IN ['k8s.container.cpu.limit'], 0, AggregationTemporality = 1, 1, 2)) AS kind, intDiv(toUnixTimestamp64Nano(toDateTime64(TimeUnix, 9)), 10000000000) AS bucket,
      max((toUnixTimestamp64Nano(toDateTime64(TimeUnix, 9)), toFloat64(if(MetricName IN ['process.runtime.go.gc.pause_ns', 'process.runtime.go.gc.pause_total_ns'], Value / 1e9, Value)))) AS last,
      sum(toFloat64(if(MetricName IN ['process.runtime.go.gc.pause_ns', 'process.runtime.go.gc.pause_total_ns'], Value / 1e9, Value))) AS total, count() AS points
    FROM default.otel_metrics_sum ARRAY JOIN arrayDistinct(arrayFilter(x -> x != '', [ResourceAttributes['host.name'], ResourceAttributes['k8s.node.name'], ResourceAttributes['k8s.pod.name'], ResourceAttributes['container.id'], ResourceAttributes['host.id'], ResourceAttributes['service.instance.id']])) AS host
    WHERE (MetricName IN ['system.network.errors', 'system.network.dropped'] OR MetricName IN ['container.cpu.throttling_data.throttled_time'] OR (MetricName IN ['system.paging.faults'] AND (Attributes['type'] = 'major' OR Attributes['system.paging.type'] = 'major')) OR (MetricName = 'system.cpu.time' AND (Attributes['cpu.mode'] = 'steal' OR Attributes['state'] = 'steal' OR Attributes['system.cpu.state'] = 'steal')) OR MetricName IN ['dotnet.gc.pause.time', 'process.runtime.go.gc.pause_total_ns', 'k8s.container.cpu.limit', 'k8s.container.restart.count']) AND (1)
    GROUP BY host, signal, metric, series, kind, bucket;

-- migration 11: tailscope_metric_windows and its views (evidence metrics per 10 s bucket)
CREATE MATERIALIZED VIEW IF NOT EXISTS default.tailscope_metric_windows_histogram_mv
TO default.tailscope_metric_windows AS SELECT host, 'gc-pause' AS signal, MetricName AS metric,
      cityHash64(arrayDistinct(arrayFilter(x -> x != '', [ResourceAttributes['host.name'], ResourceAttributes['k8s.node.name'], ResourceAttributes['k8s.pod.name'], ResourceAttributes['container.id'], ResourceAttributes['host.id'], ResourceAttributes['service.instance.id']])), MetricName, ServiceName, Attributes) AS series,
      toUInt8(if(AggregationTemporality = 1, 1, 2)) AS kind, intDiv(toUnixTimestamp64Nano(toDateTime64(TimeUnix, 9)), 10000000000) AS bucket,
      max((toUnixTimestamp64Nano(toDateTime64(TimeUnix, 9)), toFloat64(if(MetricName IN ['process.runtime.go.gc.pause_ns', 'process.runtime.go.gc.pause_total_ns'], Sum / 1e9, Sum)))) AS last,
      sum(toFloat64(if(MetricName IN ['process.runtime.go.gc.pause_ns', 'process.runtime.go.gc.pause_total_ns'], Sum / 1e9, Sum))) AS total, count() AS points
    FROM default.otel_metrics_histogram ARRAY JOIN arrayDistinct(arrayFilter(x -> x != '', [ResourceAttributes['host.name'], ResourceAttributes['k8s.node.name'], ResourceAttributes['k8s.pod.name'], ResourceAttributes['container.id'], ResourceAttributes['host.id'], ResourceAttributes['service.instance.id']])) AS host
    WHERE (MetricName IN ['v8js.gc.duration', 'jvm.gc.duration', 'go.memory.gc.pause.duration', 'process.runtime.go.gc.pause_ns']) AND (1)
    GROUP BY host, signal, metric, series, kind, bucket;

-- migration 12: tailscope_trace_spans and its view (narrow span columns by trace id)
CREATE TABLE IF NOT EXISTS default.tailscope_trace_spans (
    TraceId String CODEC(ZSTD(1)),
    SpanId String CODEC(ZSTD(1)),
    ParentSpanId String CODEC(ZSTD(1)),
    ServiceName LowCardinality(String) CODEC(ZSTD(1)),
    SpanName LowCardinality(String) CODEC(ZSTD(1)),
    SpanKind LowCardinality(String) CODEC(ZSTD(1)),
    Timestamp DateTime64(9) CODEC(Delta(8), ZSTD(1)),
    Duration UInt64 CODEC(T64, ZSTD(1)),
    Host LowCardinality(String) CODEC(ZSTD(1)),
    Peer LowCardinality(String) CODEC(ZSTD(1))
) ENGINE = MergeTree()
PARTITION BY toDate(Timestamp)
ORDER BY (TraceId)
SETTINGS index_granularity = 1024, ttl_only_drop_parts = 1;

-- migration 12: tailscope_trace_spans and its view (narrow span columns by trace id)
CREATE TABLE IF NOT EXISTS default.tailscope_trace_spans_from (fromNs Int64) ENGINE = MergeTree() ORDER BY tuple();

-- migration 12: tailscope_trace_spans and its view (narrow span columns by trace id)
CREATE TABLE IF NOT EXISTS default.tailscope_trace_span_chunks (
    chunk Int64, spans UInt64, version UInt64
) ENGINE = MergeTree() ORDER BY (chunk, version);

-- migration 12: tailscope_trace_spans and its view (narrow span columns by trace id)
DROP VIEW IF EXISTS default.tailscope_trace_spans_mv;

-- migration 12: tailscope_trace_spans and its view (narrow span columns by trace id)
TRUNCATE TABLE IF EXISTS default.tailscope_trace_spans_from;

-- migration 12: tailscope_trace_spans and its view (narrow span columns by trace id)
CREATE MATERIALIZED VIEW IF NOT EXISTS default.tailscope_trace_spans_mv
TO default.tailscope_trace_spans
AS SELECT TraceId, SpanId, ParentSpanId, ServiceName, SpanName, SpanKind, Timestamp, Duration,
    multiIf(ResourceAttributes['host.name'] != '', ResourceAttributes['host.name'], ResourceAttributes['k8s.node.name'] != '', ResourceAttributes['k8s.node.name'], ResourceAttributes['host.id'] != '', ResourceAttributes['host.id'], ResourceAttributes['service.instance.id'] != '', ResourceAttributes['service.instance.id'], '') AS Host,
    if(SpanAttributes['peer.service'] != '', SpanAttributes['peer.service'], SpanAttributes['server.address']) AS Peer
FROM default.otel_traces;

-- migration 13: tailscope_span_split_buckets (the span split per 10 s bucket); episode series rebuilt
CREATE TABLE IF NOT EXISTS default.tailscope_span_split_buckets (
    chunk Int64, version UInt64, bucket Int64,
    service LowCardinality(String), host LowCardinality(String),
    calls UInt64, clientNs Int64, serverNs Int64, outsideNs Int64
  ) ENGINE = MergeTree() PARTITION BY intDiv(chunk, 144) ORDER BY (service, host, bucket);

-- migration 13: tailscope_span_split_buckets (the span split per 10 s bucket); episode series rebuilt
TRUNCATE TABLE IF EXISTS default.tailscope_call_bucket_chunks;

-- migration 13: tailscope_span_split_buckets (the span split per 10 s bucket); episode series rebuilt
TRUNCATE TABLE IF EXISTS default.tailscope_call_bucket_open;

-- migration 13: tailscope_span_split_buckets (the span split per 10 s bucket); episode series rebuilt
TRUNCATE TABLE IF EXISTS default.tailscope_call_buckets;

-- migration 14: tailscope_span_counts: a projection of the spans table (spans per 10 s of start)
ALTER TABLE default.otel_traces ADD PROJECTION IF NOT EXISTS tailscope_span_counts (SELECT intDiv(toUnixTimestamp64Nano(Timestamp), 10000000000) AS b, count() GROUP BY b);

-- migration 14: tailscope_span_counts: a projection of the spans table (spans per 10 s of start)
ALTER TABLE default.otel_traces MATERIALIZE PROJECTION tailscope_span_counts;

-- migration 15: tailscope_trace_spans: compressed blocks of 8-64 KiB (reads of a few hundred traces)
ALTER TABLE default.tailscope_trace_spans MODIFY SETTING min_compress_block_size = 8192, max_compress_block_size = 65536;
