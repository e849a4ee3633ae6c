import { describe, expect, it } from 'vitest';
import { neighbourBusy, NEIGHBOUR_BUSY_METRIC } from './neighbour-busy';

const row = (host: string, signal: string, metric: string, window: number, value: number) => ({
  host,
  signal,
  metric,
  window,
  value,
});

describe('neighbourBusy', () => {
  it("reads others' share of the host CPU: busy minus the workload's own", () => {
    const out = neighbourBusy([
      row('n', 'host-idle', 'system.cpu.utilization', 1, 0.2), // 2 CPUs, 0.2 idle: 90% busy
      row('n', 'host-cpus', 'system.cpu.utilization', 1, 2),
      row('n', 'cpu-saturation', 'process.cpu.utilization', 1, 0.3),
      row('n', 'host-idle', 'system.cpu.utilization', 2, 1.8),
      row('n', 'host-cpus', 'system.cpu.utilization', 2, 2),
      row('n', 'cpu-saturation', 'process.cpu.utilization', 2, 0.3), // more than the host: 0
      row('m', 'host-idle', 'system.cpu.utilization', 1, 0.5), // no own CPU: nothing
      row('m', 'host-cpus', 'system.cpu.utilization', 1, 1),
    ]);
    expect(out).toHaveLength(2);
    expect(out[0]).toMatchObject({ host: 'n', window: 1, signal: 'neighbour-pressure' });
    expect(out[0]?.value).toBeCloseTo(0.6, 12);
    expect(out[0]?.metric).toBe(NEIGHBOUR_BUSY_METRIC);
    expect(out[1]).toMatchObject({ window: 2, value: 0 });
  });

  it("ignores a pod's share of its limit (not a share of the host)", () => {
    const out = neighbourBusy([
      row('n', 'host-idle', 'system.cpu.utilization', 1, 0),
      row('n', 'host-cpus', 'system.cpu.utilization', 1, 1),
      row('n', 'cpu-saturation', 'k8s.pod.cpu_limit_utilization', 1, 0.1),
    ]);
    expect(out).toEqual([]);
  });
});
