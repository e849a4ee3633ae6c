import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import type { SpanRecord } from '@tailscope/analysis';
import type { EpisodesResponse, ServiceEpisode } from '@tailscope/contracts';
import type { Running } from '../src/server/serve';
import { JSON_TYPE, postOtlp, startServer } from './ingest-support';

/**
 * Episodes carry metric evidence (issue #27): the real OTel JS metrics SDK exports an
 * ObservableGauge `process.cpu.utilization` of host A, low for the seconds before a 10 s window
 * boundary and high after it (points carry real collection times, so the test waits for the
 * boundary); spans of `cart` on host A are slow in that window. Its episode names host A's CPU
 * saturation with ratio > 1; `pay`, slow in the same window on a host no metric names, says why
 * it has none.
 */

const WINDOW_MS = 10_000;
const HISTORY_MS = 20 * 60_000;
let dir: string;
let running: Running;
let boundary: number;

/**
 * Server spans of one service on one host: 5 calls per second, slow in [slowFrom, slowTo);
 * `outside`: the server span stays fast and the client's time before it grows instead.
 */
function callsOf(
  service: string,
  host: string,
  fromMs: number,
  toMs: number,
  slowFrom: number,
  outside = false,
) {
  const spans: SpanRecord[] = [];
  let i = 0;
  for (let t = fromMs; t < toMs; t += 200, i++) {
    const slow = t >= slowFrom && t < slowFrom + WINDOW_MS;
    const ms = slow && !outside ? 400 + (i % 7) : 10 + (i % 5);
    const waitMs = slow && outside ? 390 : 0;
    const traceId = `${Buffer.from(service).toString('hex').padEnd(8, '0').slice(0, 8)}${i.toString(16).padStart(24, '0')}`;
    const common = { traceId, name: 'GET /', attributes: {} };
    const startNs = BigInt(t) * 1_000_000n;
    const durationNs = BigInt(ms) * 1_000_000n;
    spans.push(
      {
        ...common,
        spanId: 'f'.padStart(16, '0'),
        parentSpanId: '',
        kind: 'SPAN_KIND_SERVER',
        service: 'front',
        startNs: startNs - 1_000_000n,
        durationNs: durationNs + 3_000_000n,
        resource: { 'service.name': 'front', 'host.name': 'front-1' },
      },
      {
        ...common,
        spanId: (2 * i + 1).toString(16).padStart(16, '0'),
        parentSpanId: 'f'.padStart(16, '0'),
        kind: 'SPAN_KIND_CLIENT',
        service: 'front',
        startNs,
        durationNs: durationNs + BigInt(1 + waitMs) * 1_000_000n,
        resource: { 'service.name': 'front', 'host.name': 'front-1' },
      },
      {
        ...common,
        spanId: (2 * i + 2).toString(16).padStart(16, '0'),
        parentSpanId: (2 * i + 1).toString(16).padStart(16, '0'),
        kind: 'SPAN_KIND_SERVER',
        service,
        startNs: startNs + BigInt(waitMs) * 1_000_000n,
        durationNs,
        resource: { 'service.name': service, 'host.name': host },
      },
    );
  }
  return spans;
}

/** OTLP/JSON of span records, one resourceSpans per resource. */
function otlpJson(spans: readonly SpanRecord[]): string {
  const byResource = new Map<string, SpanRecord[]>();
  for (const s of spans) {
    const key = JSON.stringify(s.resource);
    byResource.set(key, [...(byResource.get(key) ?? []), s]);
  }
  return JSON.stringify({
    resourceSpans: [...byResource.entries()].map(([key, group]) => ({
      resource: {
        attributes: Object.entries(JSON.parse(key) as Record<string, string>).map(([k, v]) => ({
          key: k,
          value: { stringValue: v },
        })),
      },
      scopeSpans: [
        {
          spans: group.map((s) => ({
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId,
            name: s.name,
            kind: s.kind === 'SPAN_KIND_SERVER' ? 2 : 3,
            attributes: [],
            startTimeUnixNano: String(s.startNs),
            endTimeUnixNano: String(s.startNs + s.durationNs),
          })),
        },
      ],
    })),
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tailscope-evidence-'));
  // A busy machine (several test runs at once) must not turn a slow answer into a 503.
  process.env.TAILSCOPE_QUERY_TIMEOUT_SECONDS = '240';
  running = await startServer(dir);
  let level = 0.1;
  const reader = new PeriodicExportingMetricReader({
    exporter: new OTLPMetricExporter({ url: `${running.urls.otlpHttp}/v1/metrics` }),
    exportIntervalMillis: 3_600_000,
  });
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ 'service.name': 'cart', 'host.name': 'A' }),
    readers: [reader],
  });
  provider
    .getMeter('evidence-test')
    .createObservableGauge('process.cpu.utilization', { unit: '1' })
    .addCallback((r) => {
      r.observe(level, { 'cpu.mode': 'user' });
    });
  // Three points low in the 4 s before a window boundary, three high in the 5 s after it.
  boundary = Math.ceil((Date.now() + 5_000) / WINDOW_MS) * WINDOW_MS;
  for (const [at, value] of [
    [-4000, 0.1],
    [-2500, 0.1],
    [-1000, 0.1],
    [1000, 0.95],
    [3000, 0.95],
    [5000, 0.95],
  ] as const) {
    await sleep(Math.max(0, boundary + at - Date.now()));
    level = value;
    await reader.forceFlush();
  }
  await provider.shutdown();
  await running.ingest.flush();
  const from = boundary - HISTORY_MS;
  // Through the OTLP listener, as a real server takes spans (its stored buckets follow).
  for (const [service, host, outside] of [
    ['cart', 'A', false],
    ['pay', 'pay-host', false],
    ['ship', 'ship-host', true],
  ] as const) {
    const res = await postOtlp(
      running,
      otlpJson(callsOf(service, host, from, boundary + WINDOW_MS, boundary, outside)),
      JSON_TYPE,
    );
    expect(res.status).toBe(200);
  }
  await running.ingest.flush();
}, 300_000);

afterAll(async () => {
  delete process.env.TAILSCOPE_QUERY_TIMEOUT_SECONDS;
  await running.close();
  rmSync(dir, { recursive: true, force: true });
}, 300_000);

async function episodes(): Promise<ServiceEpisode[]> {
  const from = boundary - HISTORY_MS;
  const res = await fetch(
    `${running.urls.api}/api/v1/episodes?from=${from}&to=${boundary + WINDOW_MS}`,
  );
  expect(res.status, await res.clone().text()).toBe(200);
  const body = (await res.json()) as EpisodesResponse;
  expect(body.windowSeconds).toBe(WINDOW_MS / 1000);
  return body.episodes.filter((e) => e.kind !== 'edge');
}

describe('episode evidence from metrics', { timeout: 300_000 }, () => {
  it("names host A's CPU saturation inside the episode against before it", async () => {
    const cart = (await episodes()).find((e) => e.service === 'cart');
    expect(cart).toMatchObject({ host: 'A', fromMs: boundary, toMs: boundary + WINDOW_MS });
    const cpu = cart?.evidence?.find((x) => x.metric === 'process.cpu.utilization');
    expect(cpu).toMatchObject({ signal: 'cpu-saturation', host: 'A' });
    expect(cpu?.value).toBeCloseTo(0.95, 6);
    expect(cpu?.baseline).toBeCloseTo(0.1, 6);
    expect(cpu?.ratio).toBeGreaterThan(1);
    expect(cart?.evidenceNote).toBeUndefined();
    // The gauge's series over the baseline and the episode: low, then high in the last window.
    const values = cpu?.series?.values ?? [];
    expect(values.at(-1)).toBeCloseTo(0.95, 6);
    expect(values.at(-2)).toBeCloseTo(0.1, 6);
    expect((cpu?.series?.fromMs ?? 0) + values.length * WINDOW_MS).toBe(boundary + WINDOW_MS);
  });

  it('names the cause: CPU saturation where the server spans grew with the CPU', async () => {
    const cart = (await episodes()).find((e) => e.service === 'cart');
    expect(cart?.causeSignal).toBe('cpu-saturation');
    expect(cart?.cause).toMatch(
      /^calls into cart on A were .* slower from .*; its process used 95% of the CPU \(10% before\): CPU saturation$/,
    );
    expect(cart?.spanEvidence?.serverMs).toBeGreaterThan(400);
    expect(cart?.spanEvidence?.baselineServerMs).toBeLessThan(15);
  });

  it('names network or queueing from spans alone when only the time outside grew', async () => {
    const ship = (await episodes()).find((e) => e.service === 'ship');
    expect(ship).toMatchObject({ host: 'ship-host', causeSignal: 'network-or-queueing' });
    expect(ship?.spanEvidence?.outsideMs).toBeCloseTo(391, 0);
    expect(ship?.spanEvidence?.baselineOutsideMs).toBeCloseTo(1, 3);
    expect(ship?.spanEvidence?.serverMs).toBeLessThan(15);
    expect(ship?.cause).toContain('network or queueing before the server');
  });

  it("names the server's own time, with why no metric explains it", async () => {
    const pay = (await episodes()).find((e) => e.service === 'pay');
    expect(pay?.causeSignal).toBe('server-time');
    expect(pay?.cause).toContain('cannot be joined');
  });

  it('says why an episode on a host no metric names has no evidence', async () => {
    const pay = (await episodes()).find((e) => e.service === 'pay');
    expect(pay).toMatchObject({ host: 'pay-host', fromMs: boundary });
    expect(pay?.evidence).toBeUndefined();
    expect(pay?.evidenceNote).toContain('cannot be joined');
    expect(pay?.evidenceNote).toContain('"pay-host"');
    expect(pay?.evidenceNote).toContain('metrics name A');
  });
});
