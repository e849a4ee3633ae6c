import { cumulativeRates } from '@tailscope/analysis';
import type { Store } from '../engine/client';
import { sql } from '../sql/template';

/**
 * Reads otel_metrics_sum (ours or a Collector's) as per-second rates: the points stay as they
 * were received; cumulative series become rates between consecutive points with resets
 * handled (packages/analysis cumulativeRates), delta points a rate over their own interval.
 * Times are cast to DateTime64(9), so tables whose exporter release wrote DateTime read too.
 */

export interface SumRateQuery {
  metricName: string;
  fromNs: bigint;
  toNs: bigint;
  /** At most this many series (ServiceName, resource and point attributes). */
  maxSeries: number;
  /** At most this many points per series (the earliest are kept). */
  maxPoints: number;
}

export interface SumRateSeries {
  serviceName: string;
  resource: Record<string, string>;
  attributes: Record<string, string>;
  /** The end of each interval, epoch ns (as decimal strings, exact). */
  timeNs: string[];
  perSecond: number[];
  resets: number;
}

interface Row {
  service: string;
  resource: Record<string, string>;
  attributes: Record<string, string>;
  temporality: number;
  monotonic: boolean;
  times: string[];
  starts: string[];
  values: number[];
}

export async function selectSumRates(store: Store, q: SumRateQuery): Promise<SumRateSeries[]> {
  const rows = await store.query<Row>(sql`
    SELECT ServiceName AS service, ResourceAttributes AS resource, Attributes AS attributes,
      any(AggregationTemporality) AS temporality, any(IsMonotonic) AS monotonic,
      arraySlice(arraySort(x -> x.1, groupArray((toUnixTimestamp64Nano(toDateTime64(TimeUnix, 9)),
        toUnixTimestamp64Nano(toDateTime64(StartTimeUnix, 9)), Value))), 1, ${q.maxPoints}) AS points,
      arrayMap(p -> toString(p.1), points) AS times,
      arrayMap(p -> toString(p.2), points) AS starts,
      arrayMap(p -> p.3, points) AS values
    FROM otel_metrics_sum
    WHERE MetricName = ${q.metricName}
      AND toDateTime64(TimeUnix, 9) >= fromUnixTimestamp64Nano(${q.fromNs})
      AND toDateTime64(TimeUnix, 9) < fromUnixTimestamp64Nano(${q.toNs})
    GROUP BY service, resource, attributes
    ORDER BY service
    LIMIT ${q.maxSeries}`);
  return rows.map((r) => {
    const timeNs = Float64Array.from(r.times, Number);
    const startNs = Float64Array.from(r.starts, Number);
    const values = Float64Array.from(r.values);
    const base = { serviceName: r.service, resource: r.resource, attributes: r.attributes };
    // AggregationTemporality 1 = DELTA: each point is its own increase since its start.
    if (r.temporality === 1) {
      const perSecond = r.values.map((v, i) => {
        const span = (timeNs[i] ?? 0) - (startNs[i] ?? 0);
        return span > 0 ? v / (span / 1e9) : NaN;
      });
      return { ...base, timeNs: r.times, perSecond, resets: 0 };
    }
    const rates = cumulativeRates({ timeNs, startNs, values, monotonic: r.monotonic });
    return {
      ...base,
      timeNs: r.times.slice(1),
      perSecond: [...rates.perSecond],
      resets: rates.reset.reduce((n, x) => n + x, 0),
    };
  });
}
