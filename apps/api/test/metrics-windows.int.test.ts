import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { selectHostEvidence } from '../src/store/metrics/evidence';
import { sql } from '../src/store/sql/template';
import { selectHostEvidenceOracle } from './evidence-oracle';
import { compare, METRICS, send, T0, useMetricsServer } from './metrics-windows-support';

/**
 * The evidence pre-aggregate (tailscope_metric_windows, kept by materialized views as points
 * arrive) gives the answer the raw query gave: random OTLP/JSON points of every evidence kind
 * (gauges, cumulative and delta sums, cumulative histograms; hosts named by several resource
 * keys; attributes in and out of the evidence), sent through the real ingest in several
 * requests (so a bucket lies in several unmerged parts), then read over random ranges (aligned
 * to 10 s or not) in random windows (whole buckets or not), with the pre-aggregate and without
 * it, against the pre-aggregate-free query of stop 35 (evidence-oracle.ts). Same rows, values
 * within 1e-9 relative (sums taken in another order). fast-check, fixed seed, 20 cases (8 in `npm test`).
 * Its migration over stored points: metrics-windows-migration.int.
 */

const server = useMetricsServer();
/** Cases: 20 in `npm run test:full`, the first 8 of the same seed in `npm test` (CI's minutes). */
const RUNS = process.env.TAILSCOPE_FULL_TESTS === '1' ? 20 : 8;

const pointArb = fc.record({
  resource: fc.nat(3),
  metric: fc.nat(METRICS.length - 1),
  attr: fc.nat(3),
  ms: fc.nat(300_000),
  value: fc.double({ min: 0, max: 1000, noNaN: true }),
});

describe('the evidence pre-aggregate', () => {
  it('answers as the raw query, for any points, range and window', async () => {
    let run = 0;
    let nonEmpty = 0;
    await fc.assert(
      fc.asyncProperty(
        // Distinct times: the latest point of a window is then one point on every path.
        fc.uniqueArray(pointArb, { minLength: 10, maxLength: 150, selector: (p) => p.ms }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: -20_000, max: 150_000 }),
        fc.integer({ min: 30_000, max: 320_000 }),
        fc.constantFrom(10, 20, 60, 15, 7),
        fc.boolean(),
        async (points, requests, from, length, windowS, aligned) => {
          run += 1;
          for (let i = 0; i < requests; i++)
            await send(
              run,
              points.filter((_, j) => j % requests === i),
            );
          const fromMs = aligned ? Math.floor(from / 10_000) * 10_000 : from;
          const toMs = aligned ? Math.ceil((fromMs + length) / 10_000) * 10_000 : fromMs + length;
          const rows = await compare(run, fromMs, toMs, windowS);
          if (rows.length > 0) nonEmpty += 1;
        },
      ),
      { seed: 27, numRuns: RUNS },
    );
    expect(nonEmpty).toBeGreaterThan(Math.floor(RUNS * 0.6));
  }, 300_000);

  it('is read: evidence outlives raw points that are gone from the exporter table', async () => {
    const run = 1000;
    await send(run, [
      { resource: 0, metric: 0, attr: 0, ms: 5_000, value: 0.25 },
      { resource: 0, metric: 0, attr: 0, ms: 15_000, value: 0.75 },
    ]);
    const before = await compare(run, 0, 20_000, 10);
    expect(before.map((r) => r.value)).toEqual([0.25, 0.75]);
    await server().store.command(
      sql`ALTER TABLE otel_metrics_gauge DELETE WHERE ResourceAttributes['host.name'] = 'r1000-a' SETTINGS mutations_sync = 2`,
    );
    const q = {
      fromNs: BigInt(T0) * 1_000_000n,
      toNs: BigInt(T0 + 20_000) * 1_000_000n,
      windowNs: 10_000_000_000n,
      hosts: ['r1000-a'],
      maxRows: 100,
    };
    expect((await selectHostEvidence(server().store, q)).value).toEqual(
      Float64Array.of(0.25, 0.75),
    );
    expect(await selectHostEvidenceOracle(server().store, q)).toEqual([]);
  });
});
