import { describe, expect, it } from 'vitest';
import { faultsSkipReason, hotrodPath } from './requirements';
import { runFaults } from './run';

/**
 * The fault benchmark's short version (docs/incidents.md): HotROD split across namespaces, one
 * link delay of 100 ms on route's answers for 25 s after 20 s fault-free, and
 * GET /api/v1/incidents must name route first. Route's calls take ~50 ms, so 100 ms more is
 * three times slower: the fault is plain; what is tested is that the ranking puts the extra time
 * on route (the caller's wait outside route's server span), not on the frontend that waits.
 */

const skip = faultsSkipReason();
// .ci/run sets HOTROD_REQUIRED where it prepared HotROD: there a skip would hide a broken harness.
if (skip && process.env.HOTROD_REQUIRED === '1') throw new Error(`fault test cannot run: ${skip}`);
if (skip) console.warn(`faults.int.test.ts skipped: ${skip}`);

describe.skipIf(skip !== undefined)('incidents on a real injected fault', () => {
  it('names route as the root cause of a delay on its link', async () => {
    const r = await runFaults({
      hotrod: hotrodPath(),
      tag: 'fci',
      schedule: [{ fault: 'delay', target: 'route' }],
      leadMs: 20_000,
      faultMs: 25_000,
      gapMs: 5_000,
      rate: 2,
      falsePositives: false,
      log: (line) => {
        console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
      },
    });
    const [result] = r.results;
    console.log(JSON.stringify({ result, answer: r.answers[0], labels: r.labels }, null, 1));
    expect(result?.detected).toBe(true);
    expect(result?.top[0]).toBe('route');
  }, 400_000);
});
