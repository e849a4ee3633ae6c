import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { evidenceRows } from '@tailscope/analysis';
import type { Running } from '../src/server/serve';
import { selectHostEvidence, type EvidenceRow } from '../src/store/metrics/evidence';
import { selectHostEvidenceOracle } from './evidence-oracle';
import { JSON_TYPE, startServer } from './ingest-support';

/**
 * The evidence pre-aggregate's tests (metrics-windows.int, metrics-windows-migration.int): OTLP/
 * JSON points of every evidence kind sent through the real ingest, and the evidence read with
 * the pre-aggregate, without it, and by the pre-aggregate-free query of stop 35
 * (evidence-oracle.ts): same rows, values within 1e-9 relative (sums taken in another order).
 */

let dir: string;
let running: Running;
export const T0 = 1767607200_000; // ms, a multiple of 10 s
const str = (key: string, v: string) => ({ key, value: { stringValue: v } });

export interface Point {
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
export const hostsOf = (run: number): string[] =>
  ['a', 'b', 'p', 'i', 'nobody'].map((h) => `r${String(run)}-${h}`);

/** Metric kinds: name, OTLP shape, and the attributes its points take turns with. */
export const METRICS = [
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

export async function send(run: number, points: readonly Point[]): Promise<void> {
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

export async function compare(run: number, fromMs: number, toMs: number, windowS: number) {
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

/** The running server of the file that calls it (a fresh store each), and its hooks. */
export function useMetricsServer(): () => Running {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tailscope-metrics-windows-'));
    running = await startServer(dir);
  });

  afterAll(async () => {
    await running.close();
    rmSync(dir, { recursive: true, force: true });
  });

  return () => running;
}
