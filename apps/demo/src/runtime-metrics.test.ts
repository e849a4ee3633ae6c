import { describe, expect, it } from 'vitest';
import { allowedCpus, cpuJiffies, metricsUrl } from './runtime-metrics';

describe('runtime metrics: the host CPU a process sees', () => {
  it('reads the allowed CPUs from /proc/self/status lists and ranges', () => {
    expect(allowedCpus('Name:\tnode\nCpus_allowed_list:\t0\n')).toEqual([0]);
    expect(allowedCpus('Cpus_allowed_list:\t0-2,5,7-8\n')).toEqual([0, 1, 2, 5, 7, 8]);
    expect(allowedCpus('Name:\tnode\n')).toBeNull();
    expect(allowedCpus(null)).toBeNull();
    // This process: whatever it may run on, a non-empty list of CPU numbers.
    const own = allowedCpus();
    expect(own?.length ?? 0).toBeGreaterThan(0);
  });

  it("takes only the allowed CPUs' lines of /proc/stat, by mode", () => {
    const stat = [
      'cpu  10 0 10 100 0 0 0 0 0 0',
      'cpu0 5 1 4 50 2 0 1 3 0 0',
      'cpu1 5 0 6 50 0 0 0 0 0 0',
      'intr 12345',
    ].join('\n');
    expect([...cpuJiffies(stat, [0]).entries()]).toEqual([[0, [5, 1, 4, 50, 2, 0, 1, 3]]]);
    expect([...cpuJiffies(stat, [0, 1]).keys()]).toEqual([0, 1]);
    expect(cpuJiffies(stat, [3]).size).toBe(0);
  });

  it('sends metrics beside the traces endpoint', () => {
    expect(metricsUrl('http://127.0.0.1:4318/v1/traces')).toBe('http://127.0.0.1:4318/v1/metrics');
    expect(metricsUrl('http://127.0.0.1:4318/otlp/v1/traces')).toBe(
      'http://127.0.0.1:4318/otlp/v1/metrics',
    );
  });
});
