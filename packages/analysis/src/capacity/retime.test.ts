import { describe, expect, it } from 'vitest';
import { randomTrees } from '../whatif/testing/random-trees';
import type { RequestTrees } from '../whatif';
import { childrenOf, retime } from './retime';

/** One request: root [0, 100) calling a at [10, 30) and b at [40, 70) (sequential or not). */
function twoCalls(bStart: number, structure = 0): RequestTrees {
  return {
    nodeOffsets: Uint32Array.of(0, 3),
    requestStartMs: Float64Array.of(0),
    traceIds: ['t'],
    parent: Int32Array.of(-1, 0, 0),
    startMs: Float64Array.of(0, 10, bStart),
    durationMs: Float64Array.of(100, 20, 30),
    edge: Int32Array.of(-1, 0, 1),
    host: new Uint32Array(3),
    mode: new Uint32Array(3),
    structure: Uint8Array.of(0, structure, structure),
    concurrency: Uint32Array.of(1, 1, 1),
    edges: [
      { parentService: 'r', parentOperation: 'R', leafService: 'a', leafOperation: 'A' },
      { parentService: 'r', parentOperation: 'R', leafService: 'b', leafOperation: 'B' },
    ],
    hosts: [''],
    modes: [''],
  };
}

function run(t: RequestTrees, delta: number[]): { start: Float64Array; dur: Float64Array } {
  const start = new Float64Array(t.parent.length);
  const dur = new Float64Array(t.parent.length);
  retime(t, childrenOf(t), Float64Array.from(delta), start, dur);
  return { start, dur };
}

describe('retime: whole requests re-timed by queue waits', () => {
  it.each([1, 2, 3, 4])(
    'replays random trees exactly as recorded with no change (seed %i)',
    (seed) => {
      const t = randomTrees(seed, 300);
      const { start, dur } = run(t, new Array<number>(t.parent.length).fill(0));
      for (let i = 0; i < t.parent.length; i++) {
        expect(dur[i]).toBeCloseTo(t.durationMs[i]!, 9);
        expect(start[i]).toBeCloseTo(t.startMs[i]!, 9);
      }
    },
  );

  it('a longer wait of the first of two sequential calls moves the second and the root', () => {
    const { start, dur } = run(twoCalls(40), [0, 5, 0]);
    expect(dur[1]).toBe(25);
    expect(start[2]).toBe(45);
    expect(dur[0]).toBe(105);
  });

  it('overlapping calls: the root waits for the later end only', () => {
    // b runs [25, 55): it overlaps a, so a's extra 5 ms (end 35) does not move it.
    const a = run(twoCalls(25), [0, 5, 0]);
    expect(a.start[2]).toBe(25);
    expect(a.dur[0]).toBe(100);
    // a's extra 40 ms ends it at 70, 15 ms after b: the root ends 15 ms later.
    const b = run(twoCalls(25), [0, 40, 0]);
    expect(b.dur[0]).toBe(115);
  });

  it("a call's wait moves its children with it", () => {
    const t = twoCalls(40);
    // b becomes a child of a: a [10, 30) calls b [15, 25).
    t.parent[2] = 1;
    t.startMs[2] = 15;
    t.durationMs[2] = 10;
    const { start, dur } = run(t, [0, 4, 0]);
    expect(start[2]).toBe(19);
    expect(dur[1]).toBe(24);
    expect(dur[0]).toBe(104);
  });
});
