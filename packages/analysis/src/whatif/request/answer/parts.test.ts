import { describe, expect, it } from 'vitest';
import type { WhatIfPolicy } from '../../policies/policy';
import { prepareRequestWhatIf, simulateRequestWhatIf } from './simulate';
import { SplitDriver } from '../split/driver';
import { localExecutor } from '../split/local-executor';
import { mergePoolParts, poolParts, requestParts } from './parts';
import { planState, runPlan } from '../plan/plan';
import { synthesizeRequests } from '../trees/synthetic-requests';
import { randomTrees } from '../../testing/random-trees';
import type { RequestTrees } from '../trees/trees';
import type { EdgeTarget, RequestSimulateOptions } from './simulate';

/** The split answer's driver with `threads` runners in this thread, parts of `size` requests. */
async function splitAnswer(
  trees: RequestTrees,
  edge: EdgeTarget,
  policy: WhatIfPolicy,
  opts: RequestSimulateOptions,
  size: number,
  threads: number,
): Promise<string> {
  const driver = new SplitDriver(localExecutor(threads));
  await driver.load(trees);
  return JSON.stringify(await driver.simulate(edge, policy, opts, size));
}

/** The trees with one structure per group (parent, edge), as real traces give them. */
function uniformGroups(t: RequestTrees): RequestTrees {
  const structure = t.structure.slice();
  const first = new Map<string, number>();
  for (let i = 0; i < t.parent.length; i++) {
    const key = `${String(t.parent[i])}/${String(t.edge[i])}`;
    const s = first.get(key);
    if (s === undefined) first.set(key, structure[i] ?? 0);
    else structure[i] = s;
  }
  return { ...t, structure };
}

const route = { leafService: 'route', leafOperation: 'HTTP GET /route' };
const POLICIES: WhatIfPolicy[] = [
  { kind: 'pool', workers: 10 },
  { kind: 'pool', workers: 'unbounded' },
  { kind: 'hedge', delayPercentile: 95 },
  { kind: 'tied' },
  { kind: 'good-enough', fraction: 0.9 },
];

describe('whole-request answer split into parts of the requests', () => {
  it('covers the requests once, in order, in parts of the given size', () => {
    expect(requestParts(10, 4)).toEqual([
      { from: 0, to: 4 },
      { from: 4, to: 8 },
      { from: 8, to: 10 },
    ]);
    expect(requestParts(0, 4)).toEqual([]);
  });

  it('equals the one-plan answer bit for bit, whatever the part size (HotROD-shaped)', async () => {
    const trees = synthesizeRequests({ requests: 700, workers: 3, seed: 4, routeHosts: 4 });
    for (const policy of POLICIES) {
      const opts = { seed: 3, bootstrapSamples: 200 };
      const one = JSON.stringify(simulateRequestWhatIf(trees, route, policy, opts));
      // Part sizes: one request, uneven, bigger than the trees (a single part).
      for (const size of [1, 97, 256, 10_000])
        for (const threads of [1, 3])
          expect(await splitAnswer(trees, route, policy, opts, size, threads)).toBe(one);
    }
  });

  it('equals the one-plan answer on random trees (out-of-order storage; mixed structures)', async () => {
    for (let seed = 1; seed <= 24; seed++) {
      // Even seeds: one structure per group, as real traces (split); odd: mixed structures,
      // which the split answer leaves to one plan (RequestPlan.overflow).
      const mixed = randomTrees(seed, 80);
      const trees = seed % 4 < 2 ? uniformGroups(mixed) : mixed;
      for (const policy of POLICIES.slice(0, 3)) {
        const edge = { leafService: `s${String(seed % 3)}`, leafOperation: 'op' };
        if (trees !== mixed)
          expect(prepareRequestWhatIf(trees, edge, policy).plan.overflow).toBe(false);
        const opts = { seed, bootstrapSamples: 100, replays: 3 };
        const one = JSON.stringify(simulateRequestWhatIf(trees, edge, policy, opts));
        for (const size of [1, 13, 80])
          for (const threads of [1, 2])
            expect(await splitAnswer(trees, edge, policy, opts, size, threads)).toBe(one);
      }
    }
  });

  it('a pool answer part by part, in reused memory, equals the one plan bit for bit', () => {
    const cases = [
      { trees: synthesizeRequests({ requests: 300, workers: 3, seed: 6 }), edge: route },
      ...[1, 2, 3, 4].map((seed) => ({
        trees: seed % 2 === 0 ? uniformGroups(randomTrees(seed, 60)) : randomTrees(seed, 60),
        edge: { leafService: `s${String(seed % 3)}`, leafOperation: 'op' },
      })),
    ];
    for (const { trees, edge } of cases)
      for (const workers of [1, 3, 10, Infinity]) {
        const policy: WhatIfPolicy = {
          kind: 'pool',
          workers: workers === Infinity ? 'unbounded' : workers,
        };
        const prepared = prepareRequestWhatIf(trees, edge, policy);
        const one = prepared.plan;
        const req = new Float64Array(one.involved.length);
        const fan = new Float64Array(one.groups);
        runPlan(one, one.blocks.durationMs, 0, planState(one, workers), req, fan);
        // Part sizes: one request (memory reused 300 times), uneven, a single part.
        for (const size of [1, 7, 1000]) {
          const m = mergePoolParts(poolParts(trees, prepared.mask, workers, size));
          expect(Array.from(m.head.involved)).toEqual(Array.from(one.involved));
          expect(Array.from(m.head.groupRecordedMs)).toEqual(Array.from(one.groupRecordedMs));
          expect(Array.from(m.reqAll)).toEqual(Array.from(req));
          expect(Array.from(m.fanAll)).toEqual(Array.from(fan));
        }
        // The cold answer (by parts) and the answer with the plan reused (one plan).
        const opts = { seed: 1, bootstrapSamples: 100 };
        expect(JSON.stringify(simulateRequestWhatIf(trees, edge, policy, opts))).toBe(
          JSON.stringify(simulateRequestWhatIf(trees, edge, policy, { ...opts, prepared })),
        );
      }
  });
});
