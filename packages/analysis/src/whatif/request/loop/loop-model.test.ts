import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { detectClosedLoop } from './closed-loop';
import { detectLoopModel, replayClosedLoop } from './loop-model';
import { fifoDecompose, serializedEvidence } from './serialized-resource';
import { simulateRequestWhatIf } from '../answer/simulate';
import { synthesizeLoopRequests } from '../../testing/synthetic-loop';
import { synthesizeRequests } from '../trees/synthetic-requests';

const route = { leafService: 'route', leafOperation: 'GET /route' };
const opts = { bootstrapSamples: 100 };
const off = (a: number, b: number): number => Math.abs(a / b - 1);

describe('serialized resource (FIFO wait + hold reconstruction)', () => {
  test.prop(
    [
      fc.array(
        fc.tuple(
          fc.double({ min: 0, max: 1000, noNaN: true }),
          fc.double({ min: 0, max: 100, noNaN: true }),
        ),
        {
          minLength: 1,
          maxLength: 60,
        },
      ),
    ],
    { seed: 11, numRuns: 300 },
  )('wait + hold is the duration and holds never overlap', (xs) => {
    const s = Float64Array.from(xs, ([a]) => a);
    const e = Float64Array.from(xs, ([a, d]) => a + d);
    const { waitMs, holdMs } = fifoDecompose(s, e);
    const spans = xs
      .map((_, i) => [e[i]! - holdMs[i]!, e[i]!] as const)
      // By end, then start: a zero-length hold that ends with another call (same end) sorts
      // after that call's hold, which is where FIFO put it.
      .sort((a, b) => a[1] - b[1] || a[0] - b[0]);
    xs.forEach((_, i) => {
      expect(waitMs[i]! + holdMs[i]!).toBeCloseTo(e[i]! - s[i]!, 9);
      expect(waitMs[i]).toBeGreaterThanOrEqual(0);
      expect(holdMs[i]).toBeGreaterThanOrEqual(0);
    });
    for (let k = 1; k < spans.length; k++)
      expect(spans[k]![0]).toBeGreaterThanOrEqual(spans[k - 1]![1] - 1e-9);
  });

  it('tells a lock from overlapping independent calls', () => {
    const locked = synthesizeLoopRequests({ requests: 200, clients: 3, workers: 2, seed: 1 });
    const calls = (want: number) => {
      const s: number[] = [];
      const e: number[] = [];
      for (let q = 0; q + 1 < locked.nodeOffsets.length; q++)
        for (let i = locked.nodeOffsets[q]!; i < locked.nodeOffsets[q + 1]!; i++)
          if (locked.edge[i] === want) {
            s.push(locked.requestStartMs[q]! + locked.startMs[i]!);
            e.push(s.at(-1)! + locked.durationMs[i]!);
          }
      return serializedEvidence(Float64Array.from(s), Float64Array.from(e));
    };
    const db = calls(0);
    expect(db.serialized, db.reason).toBe(true);
    expect(db.waitSlope).toBeGreaterThan(0.9);
    expect(db.holdP50Ms).toBeGreaterThan(150); // hold 150 + exp(50): p50 ~185
    expect(db.holdP50Ms).toBeLessThan(220);
    // The route calls of different requests never overlap here (the lock staggers requests),
    // but inside a request 2 workers run them side by side: overtaking, no queue slope.
    const rt = calls(1);
    expect(rt.serialized).toBe(false);
    // Open-loop HotROD-shaped trees: customer calls overlap freely.
    const openTrees = synthesizeRequests({ requests: 500, workers: 3, seed: 1 });
    const open = detectLoopModel(openTrees, new Uint8Array(openTrees.edges.length));
    expect(open.model).toBe('open');
  });
});

describe('closed loop', () => {
  it('finds the clients and think times of a closed loop, and calls Poisson arrivals open', () => {
    const closed = synthesizeLoopRequests({
      requests: 300,
      clients: 4,
      workers: 2,
      thinkMs: 2,
      seed: 2,
    });
    const R = closed.nodeOffsets.length - 1;
    const dur = Float64Array.from(
      { length: R },
      (_, q) => closed.durationMs[closed.nodeOffsets[q]!]!,
    );
    const c = detectClosedLoop(closed.requestStartMs, dur);
    expect(c.closed, c.reason).toBe(true);
    expect(c.clients).toBe(4);
    expect(c.thinkP50Ms).toBeCloseTo(2, 3);
    const open = synthesizeLoopRequests({
      requests: 300,
      clients: 0,
      workers: 2,
      perSecond: 3,
      seed: 2,
    });
    const od = Float64Array.from({ length: R }, (_, q) => open.durationMs[open.nodeOffsets[q]!]!);
    const o = detectClosedLoop(open.requestStartMs, od);
    expect(o.closed).toBe(false);
    expect(o.reason).toMatch(/open loop/);
  });

  test.prop([fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 2, max: 6 })], {
    numRuns: 20,
    seed: 14,
  })('replaying the recorded requests through the loop gives them back', (seed, clients) => {
    const t = synthesizeLoopRequests({ requests: 40 * clients, clients, workers: 2, seed });
    const d = detectLoopModel(t, Uint8Array.of(0, 1));
    expect(d.model).toBe('closed-loop');
    if (d.model !== 'closed-loop') return;
    const R = t.nodeOffsets.length - 1;
    const rec = Float64Array.from({ length: R }, (_, q) => t.durationMs[t.nodeOffsets[q]!]!);
    const out = Float64Array.from(rec);
    replayClosedLoop(d.loop, out);
    for (let q = 0; q < R; q++) expect(out[q]).toBeCloseTo(rec[q]!, 3);
  });
});

describe('whole-request what-if on a closed loop through a lock', () => {
  // Seeds 1-5, 3 clients, the lock's hold (~200 ms) near the request's other work: a faster pool
  // mostly turns into longer waits on the lock.
  it.each([1, 2, 3, 4, 5])(
    'pool 10 on a 2-worker recording predicts the 10-worker one (seed %i)',
    (seed) => {
      const one = synthesizeLoopRequests({ requests: 600, clients: 3, workers: 2, seed });
      const two = synthesizeLoopRequests({
        requests: 600,
        clients: 3,
        workers: 10,
        seed: seed + 100,
      });
      const p = simulateRequestWhatIf(one, route, { kind: 'pool', workers: 10 }, opts);
      const truth = simulateRequestWhatIf(two, route, { kind: 'pool', workers: 10 }, opts);
      expect(p.request.model).toBe('closed-loop');
      expect(p.request.closedLoop).toMatchObject({
        clients: 3,
        resourceService: 'db',
        resourceOperation: 'SELECT',
      });
      expect(off(p.whatIf.p50.value, truth.baseline.p50)).toBeLessThan(0.05);
      expect(off(p.request.whatIf.p50.value, truth.request.baseline.p50)).toBeLessThan(0.05);
      // The replayed wait on the lock matches the 10-worker recording's.
      expect(
        off(p.request.closedLoop!.replayedWaitP50Ms, truth.request.closedLoop!.recordedWaitP50Ms),
      ).toBeLessThan(0.1);
      // The request gains much less than the fan-out: most of the gain queues on the lock.
      expect(p.request.shareOfEdgeChange).toBeLessThan(0.5);
    },
  );

  it('an unchanged pool replays the loop exactly as recorded', () => {
    const t = synthesizeLoopRequests({ requests: 300, clients: 3, workers: 2, seed: 9 });
    const r = simulateRequestWhatIf(t, route, { kind: 'pool', workers: 2 }, opts);
    expect(r.request.model).toBe('closed-loop');
    for (const k of ['p50', 'p90', 'p99'] as const)
      expect(r.request.whatIf[k].value).toBeCloseTo(r.request.baseline[k], 3);
    expect(r.request.closedLoop!.replayedWaitP50Ms).toBeCloseTo(
      r.request.closedLoop!.recordedWaitP50Ms,
      3,
    );
  });

  it('a closed loop without a lock keeps the open model: nothing queues across requests', () => {
    const t = synthesizeLoopRequests({
      requests: 300,
      clients: 3,
      workers: 2,
      seed: 4,
      locked: false,
    });
    const r = simulateRequestWhatIf(t, route, { kind: 'pool', workers: 10 }, opts);
    expect(r.request.model).toBe('open');
    expect(r.request.modelReason).toMatch(/no operation is serialized/);
    expect(r.request.shareOfEdgeChange).toBeGreaterThan(0.95);
  });

  it('open-loop recordings keep the open model, with the reason', () => {
    const t = synthesizeLoopRequests({
      requests: 300,
      clients: 0,
      workers: 2,
      perSecond: 3,
      seed: 3,
    });
    const r = simulateRequestWhatIf(t, route, { kind: 'pool', workers: 10 }, opts);
    expect(r.request.model).toBe('open');
    expect(r.request.closedLoop).toBeUndefined();
    expect(r.request.modelReason).toMatch(/not a closed loop/);
    // Open: each request gains its fan-out's gain.
    expect(r.request.shareOfEdgeChange).toBeGreaterThan(0.95);
  });
});
