import type { HostSignalRow } from './measured-modes';

/**
 * Bobtail's signature of a bad neighbour without steal (bare metal, containers): the host's CPU
 * busy while the workload's own CPU is not (docs/metrics.md "neighbour pressure"). Per (host,
 * window) that has the host's idle CPU (`host-idle`: the sum over CPUs of
 * `system.cpu.utilization{state=idle}`), its CPU count (`host-cpus`) and the workload's own
 * share of all CPUs (`cpu-saturation` from `process.cpu.utilization`): others' share =
 * max(0, 1 - idle / cpus - own). Pure; O(rows). Edge cases: a window missing any of the three
 * gives nothing (the host's busy share alone includes the workload's own work).
 */

/** The store's internal signals this reads. */
export const HOST_IDLE = 'host-idle';
export const HOST_CPUS = 'host-cpus';
export const OWN_CPU_METRIC = 'process.cpu.utilization';
/** The metric name the derived rows carry. */
export const NEIGHBOUR_BUSY_METRIC = 'system.cpu.utilization busy, not process.cpu.utilization';

export interface MetricSignalRow extends HostSignalRow {
  metric: string;
}

/** The derived neighbour-pressure rows, one per (host, window) with all three inputs. */
export function neighbourBusy(rows: readonly MetricSignalRow[]): MetricSignalRow[] {
  const cells = new Map<
    string,
    { host: string; window: number; idle?: number; cpus?: number; own?: number }
  >();
  const cell = (r: MetricSignalRow) => {
    const key = `${r.host}\0${String(r.window)}`;
    let c = cells.get(key);
    if (!c) cells.set(key, (c = { host: r.host, window: r.window }));
    return c;
  };
  // Only hosts that report idle CPU can have the derived row: the others' own-CPU rows (often
  // most of them) are not indexed.
  const withIdle = new Set<string>();
  for (const r of rows) if (r.signal === HOST_IDLE) withIdle.add(r.host);
  if (withIdle.size === 0) return [];
  for (const r of rows) {
    if (!withIdle.has(r.host)) continue;
    if (r.signal === HOST_IDLE) cell(r).idle = r.value;
    else if (r.signal === HOST_CPUS) cell(r).cpus = r.value;
    else if (r.signal === 'cpu-saturation' && r.metric === OWN_CPU_METRIC) cell(r).own = r.value;
  }
  const out: MetricSignalRow[] = [];
  for (const c of cells.values()) {
    if (c.idle === undefined || c.cpus === undefined || c.own === undefined || !(c.cpus > 0))
      continue;
    out.push({
      host: c.host,
      signal: 'neighbour-pressure',
      metric: NEIGHBOUR_BUSY_METRIC,
      window: c.window,
      value: Math.max(0, 1 - c.idle / c.cpus - c.own),
    });
  }
  return out.sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : a.window - b.window));
}
