import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../src/random';
import { randomTrees } from '../../src/whatif/testing/random-trees';
import { prepareRequests } from '../../src/whatif/request/replay/replay';
import { recomputeRequests, RecomputeScratch } from './reference/request-recompute';
import { buildRequestPlan, planState, runPlan } from '../../src/whatif/request/plan/plan';
import { prepareRequests as prepareV1 } from './reference/request-replay-v1';
import {
  recomputeRequests as recomputeV1,
  RecomputeScratch as ScratchV1,
} from './reference/request-recompute-v1';

describe('whole-request replay: the columnar version equals the first implementation', () => {
  it('on random trees, every output bit for bit', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const t = randomTrees(seed, 60);
      const rng = new SeededRandom(seed + 1000);
      for (const perCall of [false, true]) {
        const target = Uint8Array.from([1, rng.below(2), 0, rng.below(2)]);
        const a = prepareV1(t, { target, perCall });
        const b = prepareRequests(t, { target, perCall });
        expect(Array.from(b.blockOf)).toEqual(Array.from(a.blockOf));
        expect(Array.from(b.groupOf)).toEqual(Array.from(a.groupOf));
        expect(Array.from(b.groupRecordedMs)).toEqual(Array.from(a.groupRecordedMs));
        expect(Array.from(b.blocks.fanoutOffsets)).toEqual(Array.from(a.blocks.fanoutOffsets));
        expect(Array.from(b.blocks.startMs)).toEqual(Array.from(a.blocks.startMs));
        expect(Array.from(b.blocks.durationMs)).toEqual(Array.from(a.blocks.durationMs));
        const B = a.blocks.fanoutOffsets.length - 1;
        const R = 3;
        const blockMs = Float64Array.from({ length: B * R }, () => rng.float() * 80);
        const sa = new ScratchV1(t.parent.length, Math.max(1, a.maxChildren));
        const sb = new RecomputeScratch(t.parent.length, Math.max(1, b.maxChildren), b.nodeTimes);
        for (const workers of [undefined, 1, 2, 10, Infinity]) {
          for (let r = 0; r < R; r++) {
            const oa = { requestMs: new Float64Array(60), fanoutMs: new Float64Array(a.groups) };
            const ob = { requestMs: new Float64Array(60), fanoutMs: new Float64Array(b.groups) };
            recomputeV1(a, blockMs, r, workers, sa, oa);
            recomputeRequests(b, blockMs, r, workers, sb, ob);
            expect(
              Array.from(ob.requestMs),
              `seed ${seed} perCall ${perCall} workers ${workers} r ${r}`,
            ).toEqual(Array.from(oa.requestMs));
            expect(Array.from(ob.fanoutMs)).toEqual(Array.from(oa.fanoutMs));
          }
        }
      }
    }
  });

  it('the compiled plan (only what a replay can change): every output bit for bit', () => {
    // Seeds 41-42: 6,000 requests, past the 4,096 after which the plan's columns are resized.
    for (let seed = 1; seed <= 42; seed++) {
      const requests = seed > 40 ? 6000 : 60;
      const t = randomTrees(seed, requests);
      const rng = new SeededRandom(seed + 2000);
      for (const perCall of [false, true]) {
        const target = Uint8Array.from([1, rng.below(2), 0, rng.below(2)]);
        const a = prepareV1(t, { target, perCall });
        const B = a.blocks.fanoutOffsets.length - 1;
        const R = 3;
        const blockMs = Float64Array.from({ length: B * R }, () => rng.float() * 80);
        const sa = new ScratchV1(t.parent.length, Math.max(1, a.maxChildren));
        for (const workers of [undefined, 1, 2, 10, Infinity]) {
          const plan = buildRequestPlan(t, {
            target,
            perCall,
            ...(workers !== undefined ? { workers } : {}),
          });
          expect(Array.from(plan.blocks.fanoutOffsets)).toEqual(Array.from(a.blocks.fanoutOffsets));
          expect(Array.from(plan.blocks.fanoutStartMs)).toEqual(Array.from(a.blocks.fanoutStartMs));
          expect(Array.from(plan.blocks.startMs)).toEqual(Array.from(a.blocks.startMs));
          expect(Array.from(plan.blocks.durationMs)).toEqual(Array.from(a.blocks.durationMs));
          expect(Array.from(plan.blocks.host)).toEqual(Array.from(a.blocks.host));
          expect(Array.from(plan.groupRecordedMs)).toEqual(Array.from(a.groupRecordedMs));
          const involved = Array.from({ length: requests }, (_, q) => q).filter((q) => {
            for (let i = t.nodeOffsets[q]!; i < t.nodeOffsets[q + 1]!; i++)
              if (a.groupOf[i]! >= 0) return true;
            return false;
          });
          expect(Array.from(plan.involved)).toEqual(involved);
          const st = planState(plan, workers);
          const oa = {
            requestMs: new Float64Array(requests),
            fanoutMs: new Float64Array(a.groups),
          };
          const req = new Float64Array(plan.involved.length);
          const fan = new Float64Array(plan.groups);
          // The pool policy's plan keeps the calls' durations only (durationsOnly).
          const lean = perCall
            ? buildRequestPlan(t, {
                target,
                perCall,
                durationsOnly: true,
                ...(workers !== undefined ? { workers } : {}),
              })
            : undefined;
          if (lean)
            expect(Array.from(lean.blocks.durationMs)).toEqual(Array.from(a.blocks.durationMs));
          const runs: [typeof plan, typeof st][] = [[plan, st]];
          if (lean) runs.push([lean, planState(lean, workers)]);
          for (let r = 0; r < R; r++) {
            recomputeV1(a, blockMs, r, workers, sa, oa);
            const what = `seed ${seed} perCall ${perCall} workers ${workers} r ${r}`;
            for (const [p, s] of runs) {
              runPlan(p, blockMs, r, s, req, fan);
              expect(Array.from(req), what).toEqual(involved.map((q) => oa.requestMs[q]));
              expect(Array.from(fan), what).toEqual(Array.from(oa.fanoutMs));
            }
          }
        }
      }
    }
  });
});
