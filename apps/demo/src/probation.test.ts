import { describe, expect, it } from 'vitest';
import { MIN_SAMPLES, ProbationTracker } from './probation';
import type { ProbationOptions } from './messages';

const OPTS: ProbationOptions = {
  windowMs: 5000,
  factor: 3,
  minLatencyMs: 10,
  holdMs: 2000,
  shadowFraction: 0.2,
  maxExcludedFraction: 0.5,
};

// Two shards, four replicas each: h0..h3 serve shard 0, h4..h7 shard 1.
const HOSTS = Array.from({ length: 8 }, (_, i) => ({
  host: `h${String(i)}`,
  shard: i < 4 ? 0 : 1,
}));

/** Every host answers `ms(host)` once per 100 ms between t0 and t1. */
function feed(p: ProbationTracker, t0: number, t1: number, ms: (host: string) => number) {
  for (let t = t0; t < t1; t += 100) for (const { host } of HOSTS) p.record(host, ms(host), t);
}

describe('ProbationTracker', () => {
  it('excludes a slow host, keeps it out while shadows stay slow, returns it after the hold', () => {
    const p = new ProbationTracker(HOSTS, OPTS);
    feed(p, 0, 5000, (h) => (h === 'h2' ? 60 : 2));
    expect(p.evaluate(5000).excluded).toEqual(['h2']);
    expect(p.isExcluded('h2')).toBe(true);
    // Still slow (shadow samples): stays out.
    feed(p, 5000, 10_000, (h) => (h === 'h2' ? 60 : 2));
    expect(p.evaluate(10_000).returned).toEqual([]);
    // Healthy again: the old slow samples leave the window at 15 s, then the hold of 2 s runs.
    feed(p, 10_000, 20_000, () => 2);
    expect(p.evaluate(15_100).returned).toEqual([]);
    const back = p.evaluate(17_200).returned;
    expect(back.map((e) => e.host)).toEqual(['h2']);
    expect(back[0]?.fromMs).toBe(5000);
    expect(back[0]?.p90AtExclusionMs).toBe(60);
    expect(p.isExcluded('h2')).toBe(false);
    expect(p.exclusions).toBe(1);
  });

  it('excludes nobody in a uniformly fast fleet (the floor), nor on too few samples', () => {
    const p = new ProbationTracker(HOSTS, OPTS);
    feed(p, 0, 5000, (h) => (h === 'h1' ? 8 : 1)); // 8x the median but under the 10 ms floor
    expect(p.evaluate(5000).excluded).toEqual([]);
    const q = new ProbationTracker(HOSTS, OPTS);
    for (let i = 0; i < MIN_SAMPLES - 1; i++) q.record('h3', 500, i);
    for (let i = 0; i < 50; i++) for (const { host } of HOSTS.slice(0, 3)) q.record(host, 1, i);
    expect(q.evaluate(100).excluded).toEqual([]);
  });

  it('never takes more than its cap of one shard out, worst first', () => {
    const p = new ProbationTracker(HOSTS, OPTS);
    const ms: Record<string, number> = { h0: 40, h1: 90, h2: 70 };
    feed(p, 0, 5000, (h) => ms[h] ?? 2);
    // Cap: floor(0.5 x 4 replicas) = 2 of shard 0, the two worst.
    expect(p.evaluate(5000).excluded).toEqual(['h1', 'h2']);
    expect(p.excludedHosts().sort()).toEqual(['h1', 'h2']);
    expect(p.openEpisodes(6000).map((e) => e.toMs)).toEqual([6000, 6000]);
  });
});
