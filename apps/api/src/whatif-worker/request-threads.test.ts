import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulateRequestWhatIf, type WhatIfPolicy } from '@tailscope/analysis';
import { synthesizeRequests } from '@tailscope/analysis/testing';
import { RequestReplayThreads, shareTrees } from './request-threads';

const route = { leafService: 'route', leafOperation: 'HTTP GET /route' };
const POLICIES: WhatIfPolicy[] = [
  { kind: 'pool', workers: 10 },
  { kind: 'hedge', delayPercentile: 95 },
  // The policies whose replay index (and tied's median) the threads build beforehand, and two
  // that need neither (policy-prep.ts).
  { kind: 'hedge', maxExtraLoad: 0.1, maxAttempts: 3 },
  { kind: 'tied' },
  { kind: 'probation' },
  { kind: 'avoid-hosts' },
  { kind: 'good-enough' },
  { kind: 'canary' },
];

/**
 * Every policy in `npm run test:full`; in `npm test` (CI's minutes) one of each kind of
 * preparation: none (pool, good-enough), the replay index (hedge with a load cap), tied's median.
 */
const CHECKED =
  process.env.TAILSCOPE_FULL_TESTS === '1'
    ? POLICIES
    : POLICIES.filter((_, i) => [0, 2, 3, 6].includes(i));

describe('whole-request answer on worker threads', () => {
  const trees = shareTrees(
    synthesizeRequests({ requests: 1500, workers: 3, seed: 5, routeHosts: 4 }),
  );
  let one: RequestReplayThreads;
  let two: RequestReplayThreads;
  beforeAll(async () => {
    [one, two] = await Promise.all([RequestReplayThreads.start(1), RequestReplayThreads.start(2)]);
    await Promise.all([one.load(trees), two.load(trees)]);
  });
  afterAll(async () => {
    await Promise.all([one.close(), two.close()]);
  });

  it('equals the one-thread answer bit for bit, whatever the threads and part size', async () => {
    for (const policy of CHECKED) {
      const opts = { seed: 2, bootstrapSamples: 200 };
      const want = JSON.stringify(simulateRequestWhatIf(trees, route, policy, opts));
      // 97-request parts: 16 parts, spread over the threads as they free up.
      for (const threads of [one, two])
        for (const size of [97, 100_000])
          expect(JSON.stringify(await threads.simulate(route, policy, opts, size))).toBe(want);
    }
  });

  it('answers an edge absent from the trees as the one-thread answer does', async () => {
    const edge = { leafService: 'route', leafOperation: 'nothing' };
    const policy: WhatIfPolicy = { kind: 'hedge', delayPercentile: 95 };
    const want = simulateRequestWhatIf(trees, edge, policy, { seed: 1, bootstrapSamples: 50 });
    const got = await two.simulate(edge, policy, { seed: 1, bootstrapSamples: 50 });
    expect(got.requests).toBe(0);
    expect(JSON.stringify(got)).toBe(JSON.stringify(want));
  });

  it('rejects an answer before any trees are loaded', async () => {
    const fresh = await RequestReplayThreads.start(1);
    await expect(fresh.simulate(route, { kind: 'pool', workers: 2 })).rejects.toThrow(/no trees/);
    await fresh.close();
  });
});
