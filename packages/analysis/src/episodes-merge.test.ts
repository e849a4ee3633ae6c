import { describe, expect, it } from 'vitest';
import { mergeSameFault, type MergeableEpisode } from './episodes-merge';

// The planted microservices fault as /episodes listed it: 4 entries for 2 sets of calls.
const base = { fromMs: 240_000, toMs: 260_000, baselineP99Ms: 6, qValue: 5e-93, calls: 400 };
const fault: MergeableEpisode[] = [
  { ...base, kind: 'callee', service: 'mysql', host: 'mysql-00', p99Ms: 187.7, ratio: 31.6 },
  {
    ...base,
    kind: 'edge',
    service: 'mysql',
    host: '*',
    p99Ms: 187.7,
    ratio: 31.6,
    parentService: 'customer',
    parentOperation: 'HTTP GET /customer',
    operation: 'SQL SELECT',
  },
  { ...base, kind: 'callee', service: 'customer', host: 'customer-00', p99Ms: 204.7, ratio: 30.9 },
  {
    ...base,
    kind: 'edge',
    service: 'customer',
    host: '*',
    p99Ms: 204.7,
    ratio: 30.9,
    parentService: 'frontend',
    parentOperation: 'HTTP GET /dispatch',
    operation: 'HTTP GET /customer',
  },
];

describe('mergeSameFault', () => {
  it('lists the same calls once: the host entry, naming its edge', () => {
    const merged = mergeSameFault(fault);
    expect(merged).toHaveLength(2);
    expect(merged[0]).toMatchObject({
      kind: 'callee',
      service: 'mysql',
      host: 'mysql-00',
      parentService: 'customer',
      operation: 'SQL SELECT',
      calls: 400,
    });
    expect(merged[1]).toMatchObject({ service: 'customer', host: 'customer-00' });
  });

  it('merges touching windows of one series, keeps other series and edges of other calls', () => {
    const a = {
      ...fault[0],
      fromMs: 0,
      toMs: 10,
      calls: 5,
      p99Ms: 50,
      ratio: 5,
    } as MergeableEpisode;
    const b = { ...a, fromMs: 10, toMs: 20, calls: 7, p99Ms: 80, ratio: 8, qValue: 1e-3 };
    const c = { ...a, fromMs: 40, toMs: 50 };
    const otherHost = { ...a, host: 'mysql-01' };
    const edgeOfMore = { ...(fault[1] as MergeableEpisode), fromMs: 0, toMs: 10, calls: 9 };
    const merged = mergeSameFault([a, b, c, otherHost, edgeOfMore]);
    expect(merged.map((e) => [e.host, e.fromMs, e.toMs, e.calls]).sort()).toEqual([
      ['*', 0, 10, 9],
      ['mysql-00', 0, 20, 12],
      ['mysql-00', 40, 50, 5],
      ['mysql-01', 0, 10, 5],
    ]);
  });
});
