import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import type { SpanRecord } from '@tailscope/analysis';
import { randomFromSeed } from '@tailscope/analysis/testing';
import type { WhatIfResponse } from '@tailscope/contracts';
import type { Running } from '../src/server/serve';
import { insertSpans } from './analysis-support';
import { startServer } from './ingest-support';

/**
 * Issue 29's CPU calibration with real OTLP metrics: one `db` process (one FIFO server, mean
 * 5 ms, 0.08 calls per ms: busy 40%) answers behind 8 virtual hosts, as a demo leaf process
 * does; the real OTel JS metrics SDK exports, per host, `process.cpu.utilization` (user 0.3 +
 * system 0.1) and `system.cpu.utilization` idle 0.6 of its one CPU, all hosts naming one
 * `process.pid`, through the OTLP/protobuf exporter to the real server. The what-if at 2x reads
 * them: one process at CPU utilisation 0.4 -> 0.8, 5 ms of CPU per call, and a p99 near the
 * queue's own (the spans alone see no queue on any host).
 */

const HOSTS = 8;
const REQUESTS = 6000;
const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');
let dir: string;
let running: Running;
let fromMs: number;
let toMs: number;

/** The requests: frontend/search -> db/query on a random host; one FIFO server serves all. */
function spans(t0: number): SpanRecord[] {
  const r = randomFromSeed('whatif-capacity-cpu');
  const out: SpanRecord[] = [];
  let t = t0;
  let free = t0;
  for (let q = 0; q < REQUESTS; q++) {
    t += -12.5 * Math.log(1 - r());
    const begin = Math.max(t, free);
    const end = begin + -5 * Math.log(1 - r());
    free = end;
    const host = `db-${Math.floor(r() * HOSTS)}`;
    const traceId = hex(q + 1, 32);
    const rootId = hex(2 * q + 1, 16);
    const ns = (ms: number): bigint => BigInt(Math.round(ms * 1e6));
    out.push(
      {
        traceId,
        spanId: hex(2 * q + 2, 16),
        parentSpanId: rootId,
        kind: 'Server',
        service: 'db',
        name: 'query',
        startNs: ns(t),
        durationNs: ns(end - t),
        resource: { 'service.name': 'db', 'host.name': host },
        attributes: {},
      },
      {
        traceId,
        spanId: rootId,
        parentSpanId: '',
        kind: 'Server',
        service: 'frontend',
        name: 'search',
        startNs: ns(t - 0.5),
        durationNs: ns(end - t + 1),
        resource: { 'service.name': 'frontend', 'host.name': 'fe-0' },
        attributes: {},
      },
    );
  }
  return out;
}

/** Each virtual host's CPU gauges through the real SDK and OTLP/protobuf exporter, twice. */
async function exportCpu(url: string): Promise<void> {
  for (let h = 0; h < HOSTS; h++) {
    const reader = new PeriodicExportingMetricReader({
      exporter: new OTLPMetricExporter({ url }),
      exportIntervalMillis: 3_600_000,
    });
    const provider = new MeterProvider({
      resource: resourceFromAttributes({
        'service.name': 'db',
        'host.name': `db-${h}`,
        'process.pid': 4242,
      }),
      readers: [reader],
    });
    const meter = provider.getMeter('capacity-cpu-test');
    meter.createObservableGauge('process.cpu.utilization', { unit: '1' }).addCallback((o) => {
      o.observe(0.3, { 'cpu.mode': 'user' });
      o.observe(0.1, { 'cpu.mode': 'system' });
    });
    meter.createObservableGauge('system.cpu.utilization', { unit: '1' }).addCallback((o) => {
      for (const [mode, v] of [
        ['idle', 0.6],
        ['user', 0.3],
        ['system', 0.1],
      ] as const)
        o.observe(v, { 'cpu.logical_number': 0, 'cpu.mode': mode });
    });
    await reader.forceFlush();
    await reader.forceFlush();
    await provider.shutdown();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tailscope-capacity-cpu-'));
  process.env.TAILSCOPE_QUERY_TIMEOUT_SECONDS = '240';
  running = await startServer(dir);
  fromMs = Date.now() - 120_000;
  await insertSpans(running.store, spans(fromMs + 1000));
  await exportCpu(`${running.urls.otlpHttp}/v1/metrics`);
  await running.ingest.flush();
  toMs = Date.now() + 1000;
}, 300_000);

afterAll(async () => {
  delete process.env.TAILSCOPE_QUERY_TIMEOUT_SECONDS;
  await running.close();
  rmSync(dir, { recursive: true, force: true });
}, 300_000);

async function whatIf(factor: number): Promise<WhatIfResponse> {
  const res = await fetch(`${running.urls.api}/api/v1/whatif`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      leafService: 'db',
      leafOperation: 'query',
      from: fromMs,
      to: toMs,
      policy: { kind: 'load', factor },
    }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as WhatIfResponse;
}

describe('capacity calibrated by real OTLP CPU metrics', { timeout: 300_000 }, () => {
  it('reads one process of 8 hosts at CPU 0.4 and predicts its queue at 2x', async () => {
    const a = await whatIf(2);
    const db = a.capacity?.services.find((s) => s.service === 'db');
    expect(db?.instances).toBe(HOSTS);
    expect(db?.cpu?.processes).toBe(1);
    expect(db?.cpu?.utilisation).toBeCloseTo(0.4, 6);
    expect(db?.cpu?.utilisationAfter).toBeCloseTo(0.8, 6);
    // 0.4 of one CPU over ~0.08 calls per ms (the recording's own rate).
    expect(db?.cpu?.cpuMsPerCall).toBeGreaterThan(4.5);
    expect(db?.cpu?.cpuMsPerCall).toBeLessThan(5.5);
    // The span model reads each virtual host as nearly idle.
    expect(db?.cpu?.spanUtilisation).toBeLessThan(0.3);
    expect(a.notes.some((n) => n.includes('calibrated by runtime metrics'))).toBe(true);
    // M/M/1 at utilisation 0.8, mean service 5 ms: the response time's p99 is
    // ln(100) x 5 / (1 - 0.8) = 115 ms, plus the root's 1 ms. Tolerance 15% (6,000 requests).
    const p99 = a.capacity?.request.whatIf?.p99.value ?? 0;
    expect(p99).toBeGreaterThan(116 * 0.85);
    expect(p99).toBeLessThan(116 * 1.15);
  });

  it('saturates at 2.6x: the CPU, not the spans, says so', async () => {
    const a = await whatIf(2.6);
    expect(a.applicable).toBe(false);
    expect(a.capacity?.saturated).toEqual(['db']);
    expect(a.capacity?.services[0]?.utilisationAfter).toBeLessThan(1);
  });
});
