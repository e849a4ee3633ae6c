import type { MetricSignalRow } from './neighbour-busy';

/**
 * A container's (or pod's) CPU against its limit from two metrics, where the receiver sends the
 * usage and the limit apart rather than their ratio (docs/metrics.md "own CPU saturation"):
 * kubeletstats' `container.cpu.usage` (cores) and the limit as the k8s_cluster receiver
 * (`k8s.container.cpu_limit`) or the semantic conventions (`k8s.container.cpu.limit`) send it.
 * Per (host, window) with both, `cpu-saturation` = usage / limit, each already summed over the
 * host's series (a pod's containers when the host is the pod). Pure; O(rows). Edge cases: a window
 * missing either gives nothing; a limit of 0 (none set) gives nothing; a container of the pod
 * without a limit still adds its usage, so the ratio can read high (the receiver's own
 * `k8s.pod.cpu_limit_utilization` is then absent for the same reason).
 */

/** The store's internal signals this reads. */
export const CONTAINER_CPU_USAGE = 'container-cpu-usage';
export const CONTAINER_CPU_LIMIT = 'container-cpu-limit';
/** The metric name the derived rows carry. */
export const CONTAINER_SATURATION_METRIC = 'container.cpu.usage over its limit';

/** The derived cpu-saturation rows, ordered by host and window. */
export function containerSaturation(rows: readonly MetricSignalRow[]): MetricSignalRow[] {
  const cells = new Map<string, { host: string; window: number; usage?: number; limit?: number }>();
  for (const r of rows) {
    if (r.signal !== CONTAINER_CPU_USAGE && r.signal !== CONTAINER_CPU_LIMIT) continue;
    const key = `${r.host}\0${String(r.window)}`;
    let c = cells.get(key);
    if (!c) cells.set(key, (c = { host: r.host, window: r.window }));
    if (r.signal === CONTAINER_CPU_USAGE) c.usage = r.value;
    else c.limit = r.value;
  }
  const out: MetricSignalRow[] = [];
  for (const c of cells.values())
    if (c.usage !== undefined && c.limit !== undefined && c.limit > 0)
      out.push({
        host: c.host,
        signal: 'cpu-saturation',
        metric: CONTAINER_SATURATION_METRIC,
        window: c.window,
        value: c.usage / c.limit,
      });
  return out.sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : a.window - b.window));
}
