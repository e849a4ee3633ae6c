import { describe, expect, it } from 'vitest';
import { autoWindowSeconds, decodeHosts, hostMatrix } from './hosts';

describe('hosts', () => {
  const res = decodeHosts(
    {
      from: 0,
      to: 40_000,
      windowSeconds: 10,
      hosts: [
        {
          host: 'b',
          mode: 'shared',
          calls: 30,
          windows: [{ startMs: 10_000, calls: 30, p50Ms: 2, p99Ms: 9, maxMs: 10 }],
        },
        {
          host: 'a',
          mode: 'dedicated',
          calls: 50,
          windows: [
            { startMs: 0, calls: 20, p50Ms: 1, p99Ms: 4, maxMs: 5 },
            { startMs: 30_000, calls: 30, p50Ms: 1, p99Ms: 5, maxMs: 6 },
          ],
        },
      ],
      fleet: [],
      episodes: [
        {
          host: 'b',
          startMs: 10_000,
          endMs: 20_000,
          windows: 1,
          calls: 30,
          worstP99Ms: 9,
          fleetP99Ms: 4.5,
        },
      ],
    },
    '',
  );

  it('lays host windows on a matrix spanning first to last window, NaN where a host was idle', () => {
    const m = hostMatrix(res);
    expect(m.windows).toBe(4);
    expect(m.startMs).toBe(0);
    expect(m.hosts).toEqual(['b', 'a']);
    expect(Array.from(m.values.subarray(0, 4))).toEqual([NaN, 9, NaN, NaN]);
    expect(Array.from(m.values.subarray(4, 8))).toEqual([4, NaN, NaN, 5]);
    expect(m.calls[7]).toBe(30);
    expect(res.episodes[0]?.host).toBe('b');
  });

  it('copes with no windows', () => {
    expect(hostMatrix({ windowSeconds: 60, hosts: [], episodes: [] }).windows).toBe(0);
  });

  it('picks nice window lengths for about 90 windows', () => {
    expect(autoWindowSeconds(30_000)).toBe(0.5);
    expect(autoWindowSeconds(3_600_000)).toBe(60);
    expect(autoWindowSeconds(7 * 86_400_000)).toBe(21_600);
  });
});
