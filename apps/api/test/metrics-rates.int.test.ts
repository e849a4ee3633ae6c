import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Running } from '../src/server/serve';
import { selectSumRates } from '../src/store/metrics/sums';
import { JSON_TYPE, startServer } from './ingest-support';

/** Cumulative sums stored as received, read back as rates with the process restart handled. */

let dir: string;
let running: Running;
const T0 = 1767607200n * 1_000_000_000n;
const s = (sec: number) => String(T0 + BigInt(sec) * 1_000_000_000n);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tailscope-metrics-rates-'));
  running = await startServer(dir);
  // 100 -> 150 -> 170 in 10 s steps, then a restart at +31 s (new start time) and 40 at +35 s:
  // 40 over the 4 s since the restart.
  const points = [
    [0, 10, 100],
    [0, 20, 150],
    [0, 30, 170],
    [31, 35, 40],
  ].map(([start, time, v]) => ({
    startTimeUnixNano: s(start ?? 0),
    timeUnixNano: s(time ?? 0),
    asInt: String(v),
  }));
  const body = JSON.stringify({
    resourceMetrics: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'rates' } }] },
        scopeMetrics: [
          {
            metrics: [
              {
                name: 'rates.requests',
                sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints: points },
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

describe('selectSumRates', () => {
  it('turns a cumulative counter into per-second rates across a restart', async () => {
    const series = await selectSumRates(running.store, {
      metricName: 'rates.requests',
      fromNs: T0,
      toNs: T0 + 3600n * 1_000_000_000n,
      maxSeries: 10,
      maxPoints: 100,
    });
    expect(series).toHaveLength(1);
    expect(series[0]).toMatchObject({
      serviceName: 'rates',
      timeNs: [s(20), s(30), s(35)],
      perSecond: [5, 2, 10],
      resets: 1,
    });
  });
});
