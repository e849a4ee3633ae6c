import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidenceRows } from '@tailscope/analysis';
import type { Running } from '../src/server/serve';
import { selectHostEvidence, selectMetricHosts } from '../src/store/metrics/evidence';
import { JSON_TYPE, startServer } from './ingest-support';

/**
 * selectHostEvidence on exact OTLP/JSON points: a cumulative steal counter becomes a rate from
 * its second window on (user time left out), a delta error count a rate over its window, a
 * cumulative GC histogram's Sum pause seconds per second, major page faults per second (minor
 * left out), and a gauge joined on container.id.
 */

let dir: string;
let running: Running;
const T0 = 1767607200n * 1_000_000_000n; // a multiple of the 10 s window
const W = 10n * 1_000_000_000n;
const s = (sec: number) => String(T0 + BigInt(sec) * 1_000_000_000n);
const str = (key: string, v: string) => ({ key, value: { stringValue: v } });

const gcHost = (host: string, metric: Record<string, unknown>) => ({
  resource: { attributes: [str('service.name', 'runtime'), str('host.name', host)] },
  scopeMetrics: [{ metrics: [metric] }],
});

const container = (pod: string, name: string, metric: Record<string, unknown>) => ({
  resource: {
    attributes: [
      str('k8s.namespace.name', 'shop'),
      str('k8s.pod.name', pod),
      str('k8s.container.name', name),
    ],
  },
  scopeMetrics: [{ metrics: [metric] }],
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tailscope-metrics-evidence-'));
  running = await startServer(dir);
  const cumulative = (state: string, values: number[]) =>
    values.map((v, i) => ({
      startTimeUnixNano: s(0),
      timeUnixNano: s(5 + 10 * i),
      asDouble: v,
      attributes: [str('state', state)],
    }));
  const body = JSON.stringify({
    resourceMetrics: [
      {
        resource: { attributes: [str('service.name', 'node'), str('host.name', 'n1')] },
        scopeMetrics: [
          {
            metrics: [
              {
                name: 'system.cpu.time',
                sum: {
                  aggregationTemporality: 2,
                  isMonotonic: true,
                  dataPoints: [
                    ...cumulative('steal', [0, 1, 2, 8]),
                    ...cumulative('user', [0, 100, 200, 300]),
                  ],
                },
              },
              {
                name: 'system.paging.faults',
                sum: {
                  aggregationTemporality: 2,
                  isMonotonic: true,
                  dataPoints: [
                    ...cumulative('major', [0, 50, 250, 250]),
                    ...cumulative('minor', [0, 9000, 18000, 27000]),
                  ].map((p) => ({
                    ...p,
                    attributes: [str('type', p.attributes[0]?.value.stringValue ?? '')],
                  })),
                },
              },
              {
                name: 'system.network.errors',
                sum: {
                  aggregationTemporality: 1,
                  isMonotonic: true,
                  dataPoints: [{ startTimeUnixNano: s(10), timeUnixNano: s(15), asInt: '20' }],
                },
              },
              {
                name: 'v8js.gc.duration',
                histogram: {
                  aggregationTemporality: 2,
                  dataPoints: [0.1, 0.3].map((sum, i) => ({
                    startTimeUnixNano: s(0),
                    timeUnixNano: s(5 + 10 * i),
                    count: String(i + 1),
                    sum,
                    bucketCounts: [String(i + 1), '0'],
                    explicitBounds: [1],
                  })),
                },
              },
            ],
          },
        ],
      },
      {
        // Bare metal, no steal: two CPUs 10% idle each while the process uses 20% of them.
        resource: { attributes: [str('service.name', 'app2'), str('host.name', 'n2')] },
        scopeMetrics: [
          {
            metrics: [
              {
                name: 'system.cpu.utilization',
                gauge: {
                  dataPoints: ['0', '1'].flatMap((cpu) =>
                    ['idle', 'user'].map((state) => ({
                      timeUnixNano: s(5),
                      asDouble: state === 'idle' ? 0.1 : 0.9,
                      attributes: [str('cpu', cpu), str('state', state)],
                    })),
                  ),
                },
              },
              {
                name: 'process.cpu.utilization',
                gauge: { dataPoints: [{ timeUnixNano: s(5), asDouble: 0.2 }] },
              },
            ],
          },
        ],
      },
      // GC pauses as the Go and .NET runtimes send them: the Go contrib instrumentation's
      // cumulative nanosecond counter and histogram, the Go semantic-convention histogram
      // (seconds), .NET 9's cumulative seconds counter (System.Runtime).
      gcHost('g1', {
        name: 'process.runtime.go.gc.pause_total_ns',
        unit: 'ns',
        sum: {
          aggregationTemporality: 2,
          isMonotonic: true,
          dataPoints: [0, 200_000_000, 700_000_000].map((v, i) => ({
            startTimeUnixNano: s(0),
            timeUnixNano: s(5 + 10 * i),
            asInt: String(v),
          })),
        },
      }),
      gcHost('g2', {
        name: 'go.memory.gc.pause.duration',
        unit: 's',
        histogram: {
          aggregationTemporality: 2,
          dataPoints: [0, 0.5, 0.5].map((sum, i) => ({
            startTimeUnixNano: s(0),
            timeUnixNano: s(5 + 10 * i),
            count: String(i * 3),
            sum,
            bucketCounts: [String(i * 3), '0'],
            explicitBounds: [0.01],
          })),
        },
      }),
      gcHost('g3', {
        name: 'process.runtime.go.gc.pause_ns',
        unit: 'ns',
        histogram: {
          aggregationTemporality: 2,
          dataPoints: [0, 1e9, 3e9].map((sum, i) => ({
            startTimeUnixNano: s(0),
            timeUnixNano: s(5 + 10 * i),
            count: String(i * 2),
            sum,
            bucketCounts: [String(i * 2), '0'],
            explicitBounds: [1e6],
          })),
        },
      }),
      gcHost('d1', {
        name: 'dotnet.gc.pause.time',
        unit: 's',
        sum: {
          aggregationTemporality: 2,
          isMonotonic: true,
          dataPoints: [0, 0.1, 0.4].map((v, i) => ({
            startTimeUnixNano: s(0),
            timeUnixNano: s(5 + 10 * i),
            asDouble: v,
          })),
        },
      }),
      // A pod's two containers as kubeletstats sends their CPU (cores) and the k8s_cluster
      // receiver their limits; a second pod's limit as the semantic conventions' up-down
      // counter (a non-monotonic cumulative sum).
      ...['web', 'sidecar'].flatMap((c, i) => [
        container('pod-1', c, {
          name: 'container.cpu.usage',
          unit: '{cpu}',
          gauge: { dataPoints: [{ timeUnixNano: s(5), asDouble: 0.1 * (i + 1) }] },
        }),
        container('pod-1', c, {
          name: 'k8s.container.cpu_limit',
          unit: '{cpu}',
          gauge: { dataPoints: [{ timeUnixNano: s(6), asDouble: 0.5 }] },
        }),
      ]),
      container('pod-2', 'web', {
        name: 'container.cpu.usage',
        unit: '{cpu}',
        gauge: { dataPoints: [{ timeUnixNano: s(5), asDouble: 1.5 }] },
      }),
      container('pod-2', 'web', {
        name: 'k8s.container.cpu.limit',
        unit: '{cpu}',
        sum: {
          aggregationTemporality: 2,
          isMonotonic: false,
          dataPoints: [{ startTimeUnixNano: s(0), timeUnixNano: s(6), asDouble: 2 }],
        },
      }),
      // Restarts: the k8s_cluster receiver's gauge (a running count) and the semantic
      // conventions' up-down counter.
      container('pod-3', 'web', {
        name: 'k8s.container.restarts',
        unit: '{restart}',
        gauge: {
          dataPoints: [2, 2, 3].map((v, i) => ({ timeUnixNano: s(5 + 10 * i), asInt: String(v) })),
        },
      }),
      container('pod-4', 'web', {
        name: 'k8s.container.restart.count',
        unit: '{restart}',
        sum: {
          aggregationTemporality: 2,
          isMonotonic: false,
          dataPoints: [0, 1, 1].map((v, i) => ({
            startTimeUnixNano: s(0),
            timeUnixNano: s(5 + 10 * i),
            asInt: String(v),
          })),
        },
      }),
      {
        resource: { attributes: [str('service.name', 'app'), str('container.id', 'c1')] },
        scopeMetrics: [
          {
            metrics: [
              {
                name: 'process.cpu.utilization',
                gauge: { dataPoints: [{ timeUnixNano: s(5), asDouble: 0.5 }] },
              },
            ],
          },
        ],
      },
    ],
  });
  const res = await fetch(`${running.urls.otlpHttp}/v1/metrics`, {
    method: 'POST',
    headers: JSON_TYPE,
    body,
  });
  expect(res.status).toBe(200);
  await running.ingest.flush();
});

afterAll(async () => {
  await running.close();
  rmSync(dir, { recursive: true, force: true });
});

const query = async (hosts: string[]) =>
  evidenceRows(
    await selectHostEvidence(running.store, {
      fromNs: T0,
      toNs: T0 + 6n * W,
      windowNs: W,
      hosts,
      maxRows: 100,
    }),
  );

describe('selectHostEvidence', () => {
  it('reads steal, network errors and GC pauses per second per window', async () => {
    const rows = await query(['n1']);
    const of = (signal: string) =>
      rows.filter((r) => r.signal === signal).map((r) => [r.window - Number(T0 / W), r.value]);
    const close = (got: number[][], want: number[][]) => {
      expect(got.map((x) => x[0])).toEqual(want.map((x) => x[0]));
      got.forEach((x, i) => {
        expect(x[1]).toBeCloseTo(want[i]?.[1] ?? NaN, 9);
      });
    };
    close(of('neighbour-pressure'), [
      [1, 0.1],
      [2, 0.1],
      [3, 0.6],
    ]);
    close(of('network'), [[1, 2]]);
    close(of('gc-pause'), [[1, 0.02]]);
    // Major faults only (minor ones are normal work): 50, 200 and 0 per 10 s.
    close(of('memory-pressure'), [
      [1, 5],
      [2, 20],
      [3, 0],
    ]);
    expect(rows.every((r) => r.host === 'n1')).toBe(true);
  });

  it("reads a neighbour on bare metal: the host's CPU busy, not with the workload's own", async () => {
    const rows = await query(['n2']);
    const n = rows.filter((r) => r.signal === 'neighbour-pressure');
    expect(n).toHaveLength(1);
    // 1 - 0.2 idle / 2 CPUs - 0.2 own = 0.7; the idle and CPU-count inputs are not evidence.
    expect(n[0]?.value).toBeCloseTo(0.7, 9);
    expect(rows.map((r) => r.signal).sort()).toEqual(['cpu-saturation', 'neighbour-pressure']);
  });

  it('reads Go and .NET GC pauses as pause seconds per second, nanoseconds scaled', async () => {
    const rows = await query(['g1', 'g2', 'g3', 'd1']);
    const of = (host: string) =>
      rows
        .filter((r) => r.host === host && r.signal === 'gc-pause')
        .map((r) => [r.window - Number(T0 / W), Number(r.value.toFixed(9))]);
    expect(of('g1')).toEqual([
      [1, 0.02],
      [2, 0.05],
    ]);
    expect(of('g2')).toEqual([
      [1, 0.05],
      [2, 0],
    ]);
    expect(of('g3')).toEqual([
      [1, 0.1],
      [2, 0.2],
    ]);
    expect(of('d1')).toEqual([
      [1, 0.01],
      [2, 0.03],
    ]);
    expect(rows.every((r) => r.signal === 'gc-pause')).toBe(true);
  });

  it("reads a pod's CPU over its limit from usage and limit sent apart", async () => {
    const rows = await query(['pod-1', 'pod-2']);
    expect(rows.map((r) => [r.host, r.signal, r.metric, Number(r.value.toFixed(12))])).toEqual([
      ['pod-1', 'cpu-saturation', 'container.cpu.usage over its limit', 0.3],
      ['pod-2', 'cpu-saturation', 'container.cpu.usage over its limit', 0.75],
    ]);
  });

  it('reads container restarts as memory pressure: restarts per second', async () => {
    const rows = await query(['pod-3', 'pod-4']);
    expect(rows.map((r) => [r.host, r.signal, r.window - Number(T0 / W), r.value])).toEqual([
      ['pod-3', 'memory-pressure', 1, 0],
      ['pod-3', 'memory-pressure', 2, 0.1],
      ['pod-4', 'memory-pressure', 1, 0.1],
      ['pod-4', 'memory-pressure', 2, 0],
    ]);
  });

  it('joins a gauge on container.id, and names the hosts metrics carry', async () => {
    const rows = await query(['c1', 'nobody']);
    expect(rows).toMatchObject([{ host: 'c1', signal: 'cpu-saturation', value: 0.5 }]);
    expect(await selectMetricHosts(running.store, T0, T0 + 6n * W, 20)).toEqual([
      'c1',
      'd1',
      'g1',
      'g2',
      'g3',
      'n1',
      'n2',
      'pod-1',
      'pod-2',
      'pod-3',
      'pod-4',
    ]);
    expect(await query([])).toEqual([]);
  });
});
