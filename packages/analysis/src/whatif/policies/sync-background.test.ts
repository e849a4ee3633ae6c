import { describe, expect, it } from 'vitest';
import { replaySyncBackground } from './sync-background';
import { alignBackgroundEpisodes } from './background-episodes';
import { SeededRandom } from '../../random';
import { leafCallsFromRows, type LeafCallRow } from '../fanout/synthetic';

// 100 s, a fan-out every 10 ms to 4 hosts. Host h runs GC for 1 s every 10 s, starting at
// 2.5 h s; calls during GC take ~50 ms, others ~2 ms. Unsynchronized, 40% of requests meet a
// GC; synchronized (all at the start of each 10 s), 10%.
const t0 = 1e12;
const rng = new SeededRandom(3);
const starts: number[] = [];
const rows: LeafCallRow[][] = [];
for (let f = 0; f < 10_000; f++) {
  const t = f * 10;
  starts.push(t0 + t);
  rows.push(
    [0, 1, 2, 3].map((h) => {
      const phase = t - 2500 * h;
      const gc = phase >= 0 && phase % 10_000 < 1000;
      return { host: h, durationMs: (gc ? 50 : 2) + rng.float(), background: gc ? 1 : 0 };
    }),
  );
}
const calls = leafCallsFromRows(starts, rows, 4, ['none', 'gc']);
const slowShare = (xs: Float64Array): number => xs.filter((x) => x > 25).length / xs.length;

describe('synchronized background activity', () => {
  it('finds each host’s episodes and aligns them on the earliest host', () => {
    const ep = alignBackgroundEpisodes(calls, 1000);
    expect(ep.hostsWithBackground).toBe(4);
    // 10 episodes per host (host 3's last starts at 97.5 s), each now at a multiple of 10 s.
    expect(ep.episodes).toBe(40);
    for (const s of ep.start) expect((s - t0) % 10_000).toBe(0);
  });

  it('cuts the share of requests that meet background activity from 40% to 10%', () => {
    const r = replaySyncBackground(calls, 1000, new SeededRandom(1));
    const before = slowShare(
      Float64Array.from(rows, (row) => Math.max(...row.map((c) => c.durationMs))),
    );
    expect(before).toBeCloseTo(0.4, 6);
    // Requests in [10n, 10n + 1) s now meet GC on all hosts; the episodes' call-based
    // extent (start of first flagged call to end of last) adds ~0.05 s: 10% to 11%.
    const after = slowShare(r.allLeavesMs);
    expect(after).toBeGreaterThan(0.095);
    expect(after).toBeLessThan(0.115);
    expect(r.movedIn).toBeGreaterThan(0);
    expect(r.movedOut).toBeGreaterThan(0);
  });

  it('leaves data without background activity unchanged', () => {
    const plain = leafCallsFromRows(
      starts.slice(0, 10),
      rows.slice(0, 10).map((r) => r.map((c) => ({ ...c, background: 0 }))),
      4,
    );
    const r = replaySyncBackground(plain, 1000, new SeededRandom(1));
    expect(r.episodes).toBe(0);
    expect(Array.from(r.allLeavesMs)).toEqual(
      rows.slice(0, 10).map((row) => Math.max(...row.map((c) => c.durationMs))),
    );
  });
});
