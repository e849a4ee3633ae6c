import type { EpisodesResponse } from '@tailscope/contracts';
import { afterAll, describe, expect, it } from 'vitest';
import { hotrodSkipReason } from './hotrod-bin';
import { startHarness, type Harness } from './hotrod-support';

/**
 * Episodes on real traces (issue #13): HotROD at 1 request in flight for a while, then at 6.
 * HotROD's MySQL is one connection behind a mutex, so with 6 in flight every customer call
 * queues behind the others: calls into customer and its MySQL calls get several times slower
 * against their own earlier history, with no second host to compare with (every span's host
 * is `unknown`). What the API finds is printed (docs/real-traces.md "Episodes") and checked
 * loosely: the load decides the numbers, the test only pins that the slow phase is what shows.
 */

const skip = hotrodSkipReason();
// .ci/run sets HOTROD_REQUIRED where it prepared HotROD: there a skip would hide a broken harness.
if (skip && process.env.HOTROD_REQUIRED === '1') throw new Error(`HotROD test cannot run: ${skip}`);
if (skip) console.warn(`hotrod-episodes.int.test.ts skipped: ${skip}`);

let harness: Harness | undefined;

describe.skipIf(skip !== undefined)('episodes on HotROD', () => {
  afterAll(async () => {
    await harness?.stop();
  }, 60_000);

  it('finds calls into customer / mysql slower while 6 requests are in flight', async () => {
    harness = await startHarness('hotrod-ep');
    const hotrod = harness.startHotrod();
    try {
      const t0 = Date.now();
      const calm = await harness.dispatch(60, 1);
      const t1 = Date.now();
      const busy = await harness.dispatch(60, 6);
      const t2 = Date.now();
      expect(calm.filter((s) => s === 200).length).toBeGreaterThan(50);
      expect(busy.filter((s) => s === 200).length).toBeGreaterThan(50);
      // Let the batch exporters flush.
      await new Promise((r) => setTimeout(r, 3000));
      const [res] = await harness.api([`/api/v1/episodes?from=${String(t0)}&to=${String(t2)}`]);
      expect(res?.status).toBe(200);
      const body = JSON.parse(res?.body ?? '{}') as EpisodesResponse;
      console.log(JSON.stringify({ calmMs: t1 - t0, busyMs: t2 - t1, t0, t1, t2, body }, null, 1));
      const found = body.episodes.filter((e) => e.service === 'customer' || e.service === 'mysql');
      expect(found.length).toBeGreaterThan(0);
      // Every such episode lies in the busy phase (a window of slack for alignment).
      const w = body.windowSeconds * 1000;
      for (const e of found) {
        expect(e.fromMs).toBeGreaterThanOrEqual(t1 - w);
        expect(e.toMs).toBeLessThanOrEqual(t2 + w);
      }
    } finally {
      await hotrod.stop();
    }
  }, 600_000);
});
