import { describe, expect, it } from 'vitest';
import {
  CONTAINER_CPU_LIMIT,
  CONTAINER_CPU_USAGE,
  CONTAINER_SATURATION_METRIC,
  containerSaturation,
} from './container-saturation';

const row = (host: string, signal: string, window: number, value: number) => ({
  host,
  signal,
  metric: signal === CONTAINER_CPU_USAGE ? 'container.cpu.usage' : 'k8s.container.cpu_limit',
  window,
  value,
});

describe('containerSaturation', () => {
  it('reads usage over limit per window where both are there', () => {
    const out = containerSaturation([
      row('p', CONTAINER_CPU_USAGE, 2, 0.45),
      row('p', CONTAINER_CPU_LIMIT, 2, 0.5),
      row('p', CONTAINER_CPU_USAGE, 1, 0.05),
      row('p', CONTAINER_CPU_LIMIT, 1, 0.5),
      row('p', CONTAINER_CPU_USAGE, 3, 0.4), // no limit in window 3: nothing
      row('q', CONTAINER_CPU_USAGE, 1, 0.4),
      row('q', CONTAINER_CPU_LIMIT, 1, 0), // no limit set: nothing
      {
        host: 'p',
        signal: 'cpu-saturation',
        metric: 'process.cpu.utilization',
        window: 1,
        value: 1,
      },
    ]);
    expect(out.map((r) => [r.host, r.window, Number(r.value.toFixed(12))])).toEqual([
      ['p', 1, 0.1],
      ['p', 2, 0.9],
    ]);
    expect(out.every((r) => r.signal === 'cpu-saturation')).toBe(true);
    expect(out[0]?.metric).toBe(CONTAINER_SATURATION_METRIC);
  });
});
