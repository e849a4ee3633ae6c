import { CONTAINER_CPU_LIMIT, CONTAINER_CPU_USAGE, HOST_IDLE } from '@tailscope/analysis';
import { sql, raw, type Param, type Sql } from '../sql/template';

/**
 * What each metrics table gives as evidence (docs/metrics.md "Evidence from metrics"), in one
 * place for both readers of it: the evidence query over the exporter's tables and the
 * materialized views that keep the per-10 s pre-aggregate (evidence-windows.ts). The views are
 * DDL, which cannot bind parameters, so the classification is literal SQL built from the
 * constants below (our own names, never a user's value).
 */

/** Resource keys a metric is joined to spans' hosts on. */
export const JOIN_KEYS = [
  'host.name',
  'k8s.node.name',
  'k8s.pod.name',
  'container.id',
  'host.id',
  'service.instance.id',
] as const;

export type EvidenceSignal =
  | 'cpu-saturation'
  | 'throttling'
  | 'neighbour-pressure'
  | 'gc-pause'
  | 'network'
  | 'memory-pressure';

/** Usage over limit (or over one CPU), a gauge near 1 when the workload is saturated. */
export const CPU_SATURATION_METRICS = [
  'process.cpu.utilization',
  'k8s.pod.cpu_limit_utilization',
  'k8s.container.cpu_limit_utilization',
];
/**
 * GC pause histograms (their `Sum`, seconds): V8 and the JVM (OpenTelemetry semantic
 * conventions), Go's `go.memory.gc.pause.duration` (semantic conventions, opt-in in the contrib
 * runtime instrumentation) and the older contrib instrumentation's `process.runtime.go.gc.pause_ns`
 * (nanoseconds, scaled below).
 */
/**
 * A container's CPU and its limit sent apart (containerSaturation divides them): kubeletstats'
 * `container.cpu.usage` gauge (cores); the limit as the k8s_cluster receiver's
 * `k8s.container.cpu_limit` gauge or the semantic conventions' `k8s.container.cpu.limit`
 * (an UpDownCounter: a non-monotonic sum whose points are the current limit, read as a gauge).
 */
export const CONTAINER_USAGE_METRICS = ['container.cpu.usage'];
export const CONTAINER_LIMIT_METRICS = ['k8s.container.cpu_limit'];
export const CONTAINER_LIMIT_SUM_METRICS = ['k8s.container.cpu.limit'];
export const GC_METRICS = [
  'v8js.gc.duration',
  'jvm.gc.duration',
  'go.memory.gc.pause.duration',
  'process.runtime.go.gc.pause_ns',
];
/**
 * GC pause counters (cumulative sums, seconds): .NET 9's `dotnet.gc.pause.time` (System.Runtime
 * meter) and the older Go contrib instrumentation's `process.runtime.go.gc.pause_total_ns`
 * (nanoseconds, scaled below).
 */
export const GC_SUM_METRICS = ['dotnet.gc.pause.time', 'process.runtime.go.gc.pause_total_ns'];
/** Metrics in nanoseconds among the above: their values are divided by 1e9. */
const NANOSECOND_METRICS = [
  'process.runtime.go.gc.pause_ns',
  'process.runtime.go.gc.pause_total_ns',
];
const inSeconds = (column: string): string =>
  `if(MetricName IN ${list(NANOSECOND_METRICS)}, ${column} / 1e9, ${column})`;
export const NETWORK_METRICS = ['system.network.errors', 'system.network.dropped'];
export const THROTTLING_METRICS = ['container.cpu.throttling_data.throttled_time'];
/** Major page faults (hostmetrics' paging scraper: `type`, newer `system.paging.type`). */
export const MEMORY_METRICS = ['system.paging.faults'];
/**
 * Container restarts (OOM kills among them): the k8s_cluster receiver's `k8s.container.restarts`
 * gauge and the semantic conventions' `k8s.container.restart.count` up-down counter, both a
 * running count read as a counter: restarts per second (a drop, a pruned count, reads 0).
 */
export const RESTART_GAUGE_METRICS = ['k8s.container.restarts'];
export const RESTART_SUM_METRICS = ['k8s.container.restart.count'];

/** A string constant as a SQL literal. */
export const lit = (s: string): string => `'${s.replace(/[\\']/g, (c) => `\\${c}`)}'`;
const list = (xs: readonly string[]): string => `[${xs.map(lit).join(', ')}]`;
const attrIs = (keys: readonly string[], value: string): string =>
  `(${keys.map((k) => `Attributes[${lit(k)}] = ${lit(value)}`).join(' OR ')})`;

const STATE = ['cpu.mode', 'state', 'system.cpu.state'];
const STEAL = attrIs(STATE, 'steal');
const IDLE = `(MetricName = 'system.cpu.utilization' AND ${attrIs(STATE, 'idle')})`;
const MAJOR = attrIs(['type', 'system.paging.type'], 'major');

/** One metrics table's evidence points. */
interface EvidenceSource {
  /** The exporter's table, and the short name of its view. */
  table: 'otel_metrics_gauge' | 'otel_metrics_sum' | 'otel_metrics_histogram';
  name: 'gauge' | 'sum' | 'histogram';
  /** The point's signal (SQL). */
  signal: string;
  /** Which points are evidence (SQL). */
  where: string;
  /** The value a point contributes (SQL). */
  value: string;
  /** 0 gauge (mean per window), 1 delta (sum per window), 2 cumulative (rate between windows). */
  kind: string;
}

const TEMPORALITY = 'toUInt8(if(AggregationTemporality = 1, 1, 2))';

export const EVIDENCE_SOURCES: readonly EvidenceSource[] = [
  {
    table: 'otel_metrics_gauge',
    name: 'gauge',
    signal: `multiIf(MetricName IN ${list(CPU_SATURATION_METRICS)}, 'cpu-saturation', ${IDLE}, ${lit(HOST_IDLE)}, MetricName IN ${list(CONTAINER_USAGE_METRICS)}, ${lit(CONTAINER_CPU_USAGE)}, MetricName IN ${list(CONTAINER_LIMIT_METRICS)}, ${lit(CONTAINER_CPU_LIMIT)}, MetricName IN ${list(RESTART_GAUGE_METRICS)}, 'memory-pressure', 'neighbour-pressure')`,
    where: `MetricName IN ${list(CPU_SATURATION_METRICS)} OR (MetricName = 'system.cpu.utilization' AND (${STEAL} OR ${IDLE})) OR MetricName IN ${list([...CONTAINER_USAGE_METRICS, ...CONTAINER_LIMIT_METRICS, ...RESTART_GAUGE_METRICS])}`,
    value: 'Value',
    // A restart count is a running count: read as a cumulative counter.
    kind: `toUInt8(if(MetricName IN ${list(RESTART_GAUGE_METRICS)}, 2, 0))`,
  },
  {
    table: 'otel_metrics_sum',
    name: 'sum',
    signal: `multiIf(MetricName IN ${list(NETWORK_METRICS)}, 'network', MetricName IN ${list(THROTTLING_METRICS)}, 'throttling', MetricName IN ${list([...MEMORY_METRICS, ...RESTART_SUM_METRICS])}, 'memory-pressure', MetricName IN ${list(GC_SUM_METRICS)}, 'gc-pause', MetricName IN ${list(CONTAINER_LIMIT_SUM_METRICS)}, ${lit(CONTAINER_CPU_LIMIT)}, 'neighbour-pressure')`,
    where: `MetricName IN ${list(NETWORK_METRICS)} OR MetricName IN ${list(THROTTLING_METRICS)} OR (MetricName IN ${list(MEMORY_METRICS)} AND ${MAJOR}) OR (MetricName = 'system.cpu.time' AND ${STEAL}) OR MetricName IN ${list([...GC_SUM_METRICS, ...CONTAINER_LIMIT_SUM_METRICS, ...RESTART_SUM_METRICS])}`,
    value: inSeconds('Value'),
    // An up-down counter's points are current values (the limit): a gauge's mean, not a rate.
    kind: `toUInt8(multiIf(MetricName IN ${list(CONTAINER_LIMIT_SUM_METRICS)}, 0, AggregationTemporality = 1, 1, 2))`,
  },
  {
    table: 'otel_metrics_histogram',
    name: 'histogram',
    signal: "'gc-pause'",
    where: `MetricName IN ${list(GC_METRICS)}`,
    value: inSeconds('Sum'),
    kind: TEMPORALITY,
  },
];

/** The distinct non-empty JOIN_KEYS values of a point's resource: the hosts it belongs to. */
export const HOST_KEYS = `arrayDistinct(arrayFilter(x -> x != '', [${JOIN_KEYS.map(
  (k) => `ResourceAttributes[${lit(k)}]`,
).join(', ')}]))`;

const TIME_NS = 'toUnixTimestamp64Nano(toDateTime64(TimeUnix, 9))';

/**
 * One source's points per (host, signal, metric, series, kind, bucket): the bucket is
 * intDiv(time ns, granule); `last` the (time ns, value) of the bucket's latest point (the larger
 * value on a tie), `total` the sum of its values and `points` their count. A series is one
 * (resource hosts, metric, service, attributes); a point belongs to every host its resource
 * names. `from` is the table as the statement names it; `where` narrows the points (a read's
 * time range and hosts; the views take all).
 */
export function sourceRows(
  src: EvidenceSource,
  from: string,
  granule: Sql | Param,
  where: Sql,
): Sql {
  return sql`SELECT host, ${raw(src.signal)} AS signal, MetricName AS metric,
      cityHash64(${raw(HOST_KEYS)}, MetricName, ServiceName, Attributes) AS series,
      ${raw(src.kind)} AS kind, intDiv(${raw(TIME_NS)}, ${granule}) AS bucket,
      max((${raw(TIME_NS)}, toFloat64(${raw(src.value)}))) AS last,
      sum(toFloat64(${raw(src.value)})) AS total, count() AS points
    FROM ${raw(from)} ARRAY JOIN ${raw(HOST_KEYS)} AS host
    WHERE (${raw(src.where)}) AND (${where})
    GROUP BY host, signal, metric, series, kind, bucket`;
}
