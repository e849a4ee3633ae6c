import type { CpuReading } from '@tailscope/analysis';
import type { Store } from '../engine/client';
import { hasMetricTables } from '../metrics/modes';
import { hostOf, ns } from '../sql/ctes';
import { sql } from '../sql/template';

/**
 * The capacity model's CPU readings (docs/capacity.md "CPU calibration"): per (service, host,
 * process) over a range, the mean `process.cpu.utilization` summed over its modes, and per host
 * the mean idle share of its CPUs (`system.cpu.utilization`, mode idle) and how many CPUs it
 * reported. Hosts resolve by the spans' HOST_KEYS chain, so a reading meets the calls of the
 * same `host.name`. None when the metrics tables are absent. Two bounded aggregations.
 */

/** Readings returned at most (instances of the range). */
export const MAX_CPU_READINGS = 10_000;

const T = sql`toDateTime64(TimeUnix, 9)`;

const IDLE = sql`(Attributes['cpu.mode'] = 'idle' OR Attributes['state'] = 'idle' OR Attributes['system.cpu.state'] = 'idle')`;

export async function selectCpuReadings(
  store: Store,
  q: { fromNs: bigint; toNs: bigint },
): Promise<CpuReading[]> {
  if (!(await hasMetricTables(store))) return [];
  const range = sql`${T} >= fromUnixTimestamp64Nano(${ns(q.fromNs)}) AND ${T} < fromUnixTimestamp64Nano(${ns(q.toNs)})`;
  const own = await store.query<{
    service: string;
    host: string;
    process: string;
    own: number | string;
  }>(
    sql`
    SELECT service, host, process, avg(u) AS own FROM (
      SELECT ServiceName AS service, ${hostOf('ResourceAttributes')} AS host,
        ResourceAttributes['process.pid'] AS process, TimeUnix AS t, sum(Value) AS u
      FROM otel_metrics_gauge
      WHERE MetricName = 'process.cpu.utilization' AND ${range}
      GROUP BY service, host, process, t)
    WHERE host != ''
    GROUP BY service, host, process
    ORDER BY service, host, process
    LIMIT ${MAX_CPU_READINGS}`,
  );
  if (own.length === 0) return [];
  const idle = await store.query<{
    host: string;
    idle: number | string;
    cpus: number | string;
  }>(sql`
    SELECT host, avg(idle) AS idle, max(cpus) AS cpus FROM (
      SELECT ${hostOf('ResourceAttributes')} AS host, TimeUnix AS t, avg(Value) AS idle,
        uniqExact(Attributes['cpu.logical_number']) AS cpus
      FROM otel_metrics_gauge
      WHERE MetricName = 'system.cpu.utilization' AND ${IDLE} AND ${range}
      GROUP BY host, t)
    WHERE host != ''
    GROUP BY host
    LIMIT ${MAX_CPU_READINGS}`);
  const hosts = new Map(idle.map((r) => [r.host, r]));
  return own.map((r) => {
    const h = hosts.get(r.host);
    return {
      service: r.service,
      host: r.host,
      process: r.process,
      own: Number(r.own),
      ...(h ? { idle: Number(h.idle), cpus: Math.max(1, Number(h.cpus)) } : {}),
    };
  });
}
