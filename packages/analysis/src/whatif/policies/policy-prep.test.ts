import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../random';
import type { WhatIfPolicy } from './policy';
import { preparePolicy } from './policy-prep';
import { buildReplayIndex, buildStaticIndex } from './replay-index';
import { hedgeScan, replayHedge } from './hedge';
import { replayPolicy } from './replay-policy';
import { resolvePolicy } from './resolve-policy';
import { synthesizeLeafCalls } from '../fanout/synthetic';

// 40,000 fan-outs (past the radix sort's small-input cut-off) whose starts are jittered out of
// order, with exact ties: the index's order is then the radix sort's, not the identity.
function unsortedCalls(): ReturnType<typeof synthesizeLeafCalls> {
  const calls = synthesizeLeafCalls({ fanouts: 40_000, width: 3, hosts: 6, seed: 4 });
  const rng = new SeededRandom(9);
  const s = calls.fanoutStartMs;
  for (let f = 0; f < s.length; f++) s[f] = (s[f] ?? 0) + 30 * rng.float();
  for (let f = 10; f < s.length; f += 101) s[f] = s[f - 7] ?? 0;
  return calls;
}

describe('policy prep (work done on other threads before the replay)', () => {
  const calls = unsortedCalls();

  it('orders the index by start, ties by fan-out, as the comparison sort did', () => {
    const s = calls.fanoutStartMs;
    const want = Uint32Array.from({ length: s.length }, (_, i) => i).sort(
      (a, b) => (s[a] ?? 0) - (s[b] ?? 0) || a - b,
    );
    const ix = buildStaticIndex(calls);
    expect(ix.sorted).toBe(false);
    expect(ix.order).toEqual(want);
  });

  const policies: WhatIfPolicy[] = [
    { kind: 'hedge', delayPercentile: 95 },
    { kind: 'hedge', maxExtraLoad: 0.1, maxAttempts: 3 },
    { kind: 'hedge', delayMs: 12 },
    { kind: 'tied' },
    { kind: 'probation' },
    { kind: 'avoid-hosts' },
    { kind: 'good-enough' },
  ];
  for (const policy of policies)
    it(`gives ${JSON.stringify(policy)} the same outcome bit for bit`, () => {
      const p = resolvePolicy(policy);
      const want = replayPolicy(calls, p, new SeededRandom(3), undefined, 2);
      const prep = preparePolicy(calls, p);
      expect(prep.scan !== undefined).toBe(p.kind === 'hedge');
      expect(prep.index !== undefined).toBe(p.kind !== 'good-enough');
      const got = replayPolicy(calls, p, new SeededRandom(3), undefined, 2, {
        ...prep,
        alloc: (n) => new Float64Array(new SharedArrayBuffer(8 * n)),
      });
      expect(got).toEqual(want);
      expect(Object.is(got.extraLoad, want.extraLoad)).toBe(true);
      if (p.kind === 'hedge') expect(got.allLeavesMs.buffer).toBeInstanceOf(SharedArrayBuffer); // written in place
    });
});

describe('hedge scan made beforehand', () => {
  it('is refused for another delay', () => {
    const calls = synthesizeLeafCalls({ fanouts: 200, width: 3, hosts: 4, seed: 2 });
    const ix = buildReplayIndex(calls);
    const scan = hedgeScan(calls, 5);
    const rng = (): SeededRandom => new SeededRandom(1);
    expect(replayHedge(ix, 5, 2, rng(), undefined, 3, undefined, scan)).toEqual(
      replayHedge(ix, 5, 2, rng(), undefined, 3),
    );
    expect(() => replayHedge(ix, 6, 2, rng(), undefined, 1, undefined, scan)).toThrow(/delay/);
  });
});

describe('hedge parts told as they are final', () => {
  it('tells every part once, in order, when its fan-outs hold their final times', () => {
    const calls = synthesizeLeafCalls({ fanouts: 300, width: 3, hosts: 4, seed: 5 });
    const ix = buildReplayIndex(calls);
    const R = 2;
    const want = replayHedge(ix, 4, 2, new SeededRandom(8), undefined, R);
    const ends = Uint32Array.of(0, 50, 50, 299, 300); // an empty run, and one at the start
    const told: number[] = [];
    let out = new Float64Array(0);
    const got = replayHedge(
      ix,
      4,
      2,
      new SeededRandom(8),
      undefined,
      R,
      (n) => (out = new Float64Array(n)),
      undefined,
      {
        ends,
        part: (k) => {
          told.push(k);
          for (let r = 0; r < R; r++)
            for (let f = 0; f < (ends[k] ?? 0); f++)
              expect(out[r * 300 + f]).toBe(want.allLeavesMs[r * 300 + f]);
        },
      },
    );
    expect(told).toEqual([0, 1, 2, 3, 4]);
    expect(got).toEqual(want);
  });
});
