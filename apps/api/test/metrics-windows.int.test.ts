import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidenceRows } from '@tailscope/analysis';
import type { Running } from '../src/server/serve';
import { selectHostEvidence, type EvidenceRow } from '../src/store/metrics/evidence';
import {
  metricWindowsDdl,
  WINDOWS_TABLE,
  WINDOWS_VIEWS,
} from '../src/store/metrics/evidence-windows';
import { migrate } from '../src/store/schema/migrations';
import { sql } from '../src/store/sql/template';
import { selectHostEvidenceOracle } from './evidence-oracle';
import { JSON_TYPE, startServer } from './ingest-support';

/**
 * The evidence pre-aggregate (tailscope_metric_windows, kept by materialized views as points
 * arrive) gives the answer the raw query gave: random OTLP/JSON points of every evidence kind
 * (gauges, cumulative and delta sums, cumulative histograms; hosts named by several resource
 * keys; attributes in and out of the evidence), sent through the real ingest in several
 * requests (so a bucket lies in several unmerged parts), then read over random ranges (aligned
 * to 10 s or not) in random windows (whole buckets or not), with the pre-aggregate and without
 * it, against the pre-aggregate-free query of stop 35 (evidence-oracle.ts). Same rows, values
 * within 1e-9 relative (sums taken in another order). fast-check, fixed seed, 20 cases.
 */

let dir: string;
let running: Running;
const T0 = 1767607200_000; // ms, a multiple of 10 s
const str = (key: string, v: string) => ({ key, value: { stringValue: v } });

interface Point {
  resource: number;
  metric: number;
  attr: number;
  ms: number;
  value: number;
}

const RESOURCES = (run: number): Record<string, string>[] => [
  { 'host.name': `r${String(run)}-a` },
  { 'host.name': `r${String(run)}-a`, 'k8s.pod.name': `r${String(run)}-p` },
  { 'k8s.pod.name': `r${String(run)}-p` },
  { 'host.name': `r${String(run)}-b`, 'service.instance.id': `r${String(run)}-i` },
];
const hostsOf = (run: number): string[] =>
  ['a', 'b', 'p', 'i', 'nobody'].map((h) => `r${String(run)}-${h}`);

/** Metric kinds: name, OTLP shape, and the attributes its points take turns with. */
const METRICS = [
  { name: 'process.cpu.utilization', shape: 'gauge', attrs: [[]] },
  {
    name: 'system.cpu.utilization',
    shape: 'gauge',
    attrs: [
      [str('cpu', '0'), str('state', 'idle')],
      [str('cpu', '1'), str('state', 'idle')],
      [str('cpu', '0'), str('state', 'steal')],
      [str('cpu', '0'), str('state', 'user')],
    ],
  },
  {
    name: 'system.cpu.time',
    shape: 'cumulative',
    attrs: [[str('state', 'steal')], [str('state', 'user')]],
  },
  {
    name: 'system.paging.faults',
    shape: 'cumulative',
    attrs: [[str('type', 'major')], [str('type', 'minor')]],
  },
  {
    name: 'system.network.errors',
    shape: 'delta',
    attrs: [[str('device', 'eth0')], [str('device', 'eth1')]],
  },
  { name: 'v8js.gc.duration', shape: 'histogram', attrs: [[str('v8js.gc.type', 'major')]] },
] as const;

function body(run: number, points: readonly Point[]): string {
  const resources = RESOURCES(run);
  return JSON.stringify({
    resourceMetrics: resources.map((attrs, r) => ({
      resource: {
        attributes: [
          str('service.name', 'svc'),
          ...Object.entries(attrs).map(([k, v]) => str(k, v)),
        ],
      },
      scopeMetrics: [
        {
          metrics: METRICS.map((m, mi) => {
            const pts = points
              .filter((p) => p.resource === r && p.metric === mi)
              .map((p) => ({
                startTimeUnixNano: `${String(T0 - 60_000)}000000`,
                timeUnixNano: `${String(T0 + p.ms)}000123`,
                attributes: m.attrs[p.attr % m.attrs.length],
                ...(m.shape === 'histogram'
                  ? { count: '1', sum: p.value, bucketCounts: ['1'], explicitBounds: [] }
                  : { asDouble: p.value }),
              }));
            if (m.shape === 'gauge') return { name: m.name, gauge: { dataPoints: pts } };
            if (m.shape === 'histogram')
              return { name: m.name, histogram: { aggregationTemporality: 2, dataPoints: pts } };
            return {
              name: m.name,
              sum: {
                aggregationTemporality: m.shape === 'delta' ? 1 : 2,
                isMonotonic: true,
                dataPoints: pts,
              },
            };
          }),
        },
      ],
    })),
  });
}

async function send(run: number, points: readonly Point[]): Promise<void> {
  const res = await fetch(`${running.urls.otlpHttp}/v1/metrics`, {
    method: 'POST',
    headers: JSON_TYPE,
    body: body(run, points),
  });
  expect(res.status).toBe(200);
  await running.ingest.flush();
}

const key = (r: EvidenceRow) => `${r.host} ${r.signal} ${r.metric} ${String(r.window)}`;
function expectSame(got: readonly EvidenceRow[], want: readonly EvidenceRow[]): void {
  const g = [...got].sort((a, b) => (key(a) < key(b) ? -1 : 1));
  const w = [...want].sort((a, b) => (key(a) < key(b) ? -1 : 1));
  expect(g.map(key)).toEqual(w.map(key));
  g.forEach((r, i) => {
    const v = w[i]?.value ?? NaN;
    expect(Math.abs(r.value - v)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(v)));
  });
}

async function compare(run: number, fromMs: number, toMs: number, windowS: number) {
  const q = {
    fromNs: BigInt(T0 + fromMs) * 1_000_000n,
    toNs: BigInt(T0 + toMs) * 1_000_000n,
    windowNs: BigInt(windowS) * 1_000_000_000n,
    hosts: hostsOf(run),
    maxRows: 100_000,
  };
  const oracle = await selectHostEvidenceOracle(running.store, q);
  const fast = evidenceRows(await selectHostEvidence(running.store, q));
  running.store.accelerators.metricWindows = false;
  try {
    const raw = evidenceRows(await selectHostEvidence(running.store, q));
    expectSame(raw, oracle);
  } finally {
    running.store.accelerators.metricWindows = true;
  }
  expectSame(fast, oracle);
  return oracle;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tailscope-metrics-windows-'));
  running = await startServer(dir);
});

afterAll(async () => {
  await running.close();
  rmSync(dir, { recursive: true, force: true });
});

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
      { seed: 27, numRuns: 20 },
    );
    expect(nonEmpty).toBeGreaterThan(12);
  }, 300_000);

  it('is read: evidence outlives raw points that are gone from the exporter table', async () => {
    const run = 1000;
    await send(run, [
      { resource: 0, metric: 0, attr: 0, ms: 5_000, value: 0.25 },
      { resource: 0, metric: 0, attr: 0, ms: 15_000, value: 0.75 },
    ]);
    const before = await compare(run, 0, 20_000, 10);
    expect(before.map((r) => r.value)).toEqual([0.25, 0.75]);
    await running.store.command(
      sql`ALTER TABLE otel_metrics_gauge DELETE WHERE ResourceAttributes['host.name'] = 'r1000-a' SETTINGS mutations_sync = 2`,
    );
    const q = {
      fromNs: BigInt(T0) * 1_000_000n,
      toNs: BigInt(T0 + 20_000) * 1_000_000n,
      windowNs: 10_000_000_000n,
      hosts: ['r1000-a'],
      maxRows: 100,
    };
    expect((await selectHostEvidence(running.store, q)).value).toEqual(Float64Array.of(0.25, 0.75));
    expect(await selectHostEvidenceOracle(running.store, q)).toEqual([]);
  });

  it('is filled from stored points by its migration, and filling it again counts nothing twice', async () => {
    const run = 2000;
    const points: Point[] = Array.from({ length: 60 }, (_, i) => ({
      resource: i % 4,
      metric: i % METRICS.length,
      attr: i % 3,
      ms: i * 3_001,
      value: (i * 37) % 101,
    }));
    await send(run, points);
    // As a store from before the pre-aggregate: no views, an empty table, migration 11 not run.
    const store = running.store;
    for (const v of WINDOWS_VIEWS) await store.client.command({ query: `DROP VIEW ${v}` });
    await store.client.command({ query: `TRUNCATE TABLE ${WINDOWS_TABLE}` });
    await store.command(
      sql`ALTER TABLE tailscope_migrations DELETE WHERE version = 11 SETTINGS mutations_sync = 2`,
    );
    await migrate(store);
    await compare(run, 0, 200_000, 10);
    // Run again (an interrupted migration is run whole again): still the same answer.
    for (const statement of metricWindowsDdl({ database: 'default', cluster: undefined }))
      await store.client.command({ query: statement });
    await compare(run, 0, 200_000, 60);
    // And the views are back: new points reach the pre-aggregate.
    await send(run, [{ resource: 0, metric: 0, attr: 0, ms: 250_000, value: 0.5 }]);
    const rows = await compare(run, 250_000, 260_000, 10);
    expect(rows.filter((r) => r.signal === 'cpu-saturation').map((r) => r.value)).toContain(0.5);
  });
});
