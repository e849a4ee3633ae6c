/**
 * npm run bench:metrics [-- --seconds 20 --series 500 --concurrency 4 --protocol proto|json|grpc]
 *
 * Starts the real `tailscope serve` (a child process), records gauges, sums and histograms over
 * `series` attribute sets with the OpenTelemetry JS SDK, and sends the collected points again
 * and again for `seconds` through the real OTel JS OTLP metrics exporter (protobuf over HTTP by
 * default). Prints points/s acknowledged (durable: fsynced in the metrics write-ahead log),
 * points/s stored (all in the otel_metrics_* tables) and points per server CPU-second (all the
 * server's threads: receive, decode, log, insert into the embedded engine).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OTLPMetricExporter as ProtoExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPMetricExporter as JsonExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as GrpcExporter } from '@opentelemetry/exporter-metrics-otlp-grpc';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  MeterProvider,
  MetricReader,
  type PushMetricExporter,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import { numberFlag, stringFlag } from './flags';
import { cpuSeconds } from './ingest-load';
import { startServer } from './serve-child';
import { apiClient } from '@tailscope/contracts';

const SECONDS = numberFlag('seconds', 20);
const SERIES = numberFlag('series', 500);
const CONCURRENCY = numberFlag('concurrency', 4);
const PROTOCOL = stringFlag('protocol', 'proto');
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** A reader collected on demand: the SDK's own aggregation and ResourceMetrics. */
class OnDemandReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** One collection: 4 gauges and 2 counters per series, 1 histogram (10 buckets) per series. */
async function collectPoints(): Promise<{ metrics: ResourceMetrics; points: number }> {
  const reader = new OnDemandReader();
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ 'service.name': 'bench-metrics', 'host.name': 'bench-1' }),
    readers: [reader],
  });
  const meter = provider.getMeter('bench');
  const gauges = ['cpu.utilization', 'memory.usage', 'gc.pause', 'queue.depth'].map((n) =>
    meter.createGauge(`bench.${n}`),
  );
  const counters = ['requests', 'bytes'].map((n) => meter.createCounter(`bench.${n}`));
  const histogram = meter.createHistogram('bench.latency', {
    advice: { explicitBucketBoundaries: [1, 2, 5, 10, 20, 50, 100, 200, 500] },
  });
  for (let s = 0; s < SERIES; s++) {
    const attrs = { 'k8s.pod.name': `pod-${s % 50}`, 'container.id': `c-${s}`, shard: s };
    gauges.forEach((g, i) => {
      g.record(s + i / 10, attrs);
    });
    for (const c of counters) c.add(s + 1, attrs);
    for (let k = 0; k < 5; k++) histogram.record((s * 7 + k * 13) % 600, attrs);
  }
  const { resourceMetrics } = await reader.collect();
  await provider.shutdown();
  return { metrics: resourceMetrics, points: SERIES * 7 };
}

function exporter(otlpHttp: string, otlpGrpc: string): PushMetricExporter {
  if (PROTOCOL === 'json') return new JsonExporter({ url: `${otlpHttp}/v1/metrics` });
  if (PROTOCOL === 'grpc') return new GrpcExporter({ url: `http://${otlpGrpc}` });
  return new ProtoExporter({ url: `${otlpHttp}/v1/metrics` });
}

function exportOnce(e: PushMetricExporter, metrics: ResourceMetrics): Promise<boolean> {
  return new Promise((resolve) => {
    e.export(metrics, (result) => {
      resolve(result.error === undefined);
    });
  });
}

async function storedPoints(api: string): Promise<number> {
  const text = await (await fetch(`${api}/metrics`)).text();
  const m = /^tailscope_metric_points_stored_total (\S+)$/m.exec(text);
  return m ? Number(m[1]) : 0;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tailscope-bench-metrics-'));
  const server = await startServer(dataDir);
  try {
    const grpc = await grpcAddress(server.api);
    const { metrics, points } = await collectPoints();
    const e = exporter(server.otlp, grpc);
    const cpu0 = cpuSeconds(server.child.pid);
    const t0 = performance.now();
    const until = t0 + SECONDS * 1000;
    let acked = 0;
    let failed = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (performance.now() < until) {
          if (await exportOnce(e, metrics)) acked += points;
          else failed++;
        }
      }),
    );
    const sendS = (performance.now() - t0) / 1000;
    while ((await storedPoints(server.api)) < acked) await new Promise((r) => setTimeout(r, 50));
    const storeS = (performance.now() - t0) / 1000;
    const serverCpuS = cpuSeconds(server.child.pid) - cpu0;
    await e.shutdown();
    console.log(
      `metrics ingest (${PROTOCOL}, ${points} points per request, ${CONCURRENCY} in flight, ${SECONDS} s):`,
    );
    console.log(
      `  acknowledged: ${fmt(acked / sendS)} points/s (durable; ${failed} exports failed)`,
    );
    console.log(
      `  stored:       ${fmt(acked / storeS)} points/s (${fmt(acked)} points in ${storeS.toFixed(1)} s)`,
    );
    console.log(
      `  server CPU:   ${fmt(acked / serverCpuS)} points per CPU-second (${serverCpuS.toFixed(1)} s of CPU, all threads)`,
    );
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((r) => server.child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The gRPC listener's address, from the stats the API reports. */
async function grpcAddress(api: string): Promise<string> {
  const stats = await apiClient(fetch, api).call('stats', {});
  return stats.listen?.otlpGrpc ?? '';
}

await main();
