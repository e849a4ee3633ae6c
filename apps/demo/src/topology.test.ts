import { describe, expect, it } from 'vitest';
import { planCluster, placementPrefix } from './topology';

const BASE = {
  leafProcesses: 5,
  hostsPerProcess: 8,
  width: 8,
  hogs: 1,
  contendedNice: 5,
  cpus: 2,
  canPin: true,
  canRaisePriority: true,
};

describe('planCluster', () => {
  it('spreads every shard over every process and pins the contended leaf with the hogs', () => {
    const plan = planCluster(BASE);
    expect(plan.hosts).toHaveLength(40);
    expect(new Set(plan.hosts.map((h) => h.host)).size).toBe(40);
    for (let shard = 0; shard < 8; shard++) {
      const procs = plan.hosts.filter((h) => h.shard === shard).map((h) => h.process);
      expect(new Set(procs).size).toBe(5);
    }
    const contended = plan.leaves.find((l) => l.role === 'contended');
    expect(contended).toMatchObject({ cpuList: '0', nice: 5 });
    expect(plan.hogs.map((h) => h.cpuList)).toEqual(['0']);
    expect(plan.leaves.find((l) => l.role === 'plain')?.cpuList).toBe('1');
    expect(plan).toMatchObject({ rootCpuList: '1', rootNice: -5 });
  });

  it('places nothing where taskset does not work or on one CPU', () => {
    const plan = planCluster({ ...BASE, cpus: 1, canRaisePriority: false });
    expect(plan.leaves.every((l) => l.cpuList === null)).toBe(true);
    expect(plan.rootNice).toBe(0);
    expect(placementPrefix(null, 0)).toEqual([]);
    expect(placementPrefix('0', 5)).toEqual(['taskset', '-c', '0', 'nice', '-n', '5']);
  });

  it('names the bad parameter', () => {
    expect(() => planCluster({ ...BASE, width: 21 })).toThrow(
      /--width must be .* between 2 and 20/,
    );
    expect(() => planCluster({ ...BASE, hogs: -1 })).toThrow(/--hogs/);
  });
});
