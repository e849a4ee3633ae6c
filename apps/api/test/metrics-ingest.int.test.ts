import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { OTLPMetricExporter as ProtoExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPMetricExporter as JsonExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as GrpcExporter } from '@opentelemetry/exporter-metrics-otlp-grpc';
import type { Running } from '../src/server/serve';
import { startServer } from './ingest-support';
import { exportKnownMetrics, metricRows } from './metrics-support';

/**
 * The real OpenTelemetry JS metrics exporters (OTLP protobuf and JSON over HTTP, gRPC, with and
 * without gzip) send one known set of instruments to a real `serve()`; every table holds
 * exactly the values recorded.
 */

let dir: string;
let running: Running;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tailscope-metrics-'));
  running = await startServer(dir);
});

afterAll(async () => {
  await running.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * gzip through the exporters' documented environment setting: their CompressionAlgorithm enum
 * is a nested copy (otlp-exporter-base 0.223.0), not the one the trace exporters share.
 */
function gzipped<T>(make: () => T): T {
  process.env.OTEL_EXPORTER_OTLP_METRICS_COMPRESSION = 'gzip';
  try {
    return make();
  } finally {
    delete process.env.OTEL_EXPORTER_OTLP_METRICS_COMPRESSION;
  }
}
const http = () => `${running.urls.otlpHttp}/v1/metrics`;
const EXPORTERS: [string, () => PushMetricExporter][] = [
  ['otlp-proto', () => new ProtoExporter({ url: http() })],
  ['otlp-proto gzip', () => gzipped(() => new ProtoExporter({ url: http() }))],
  ['otlp-http (JSON)', () => new JsonExporter({ url: http() })],
  ['otlp-grpc', () => new GrpcExporter({ url: `http://${running.urls.otlpGrpc}` })],
  [
    'otlp-grpc gzip',
    () => gzipped(() => new GrpcExporter({ url: `http://${running.urls.otlpGrpc}` })),
  ],
];

interface Common {
  ServiceName: string;
  MetricName: string;
  MetricUnit: string;
  MetricDescription: string;
  ScopeName: string;
  ScopeVersion: string;
  Attributes: Record<string, string>;
  ResourceAttributes: Record<string, string>;
}

describe.each(EXPORTERS)('metrics from %s', (name, make) => {
  const run = name.replace(/\W+/g, '-');
  beforeAll(async () => {
    await exportKnownMetrics(make(), run);
    await running.ingest.flush();
  });

  it('stores gauges and sums with their values, temporality and monotonicity', async () => {
    const gauges = await metricRows<Common & { Value: number }>(running, 'otel_metrics_gauge', run);
    expect(gauges).toHaveLength(1);
    expect(gauges[0]).toMatchObject({
      ServiceName: 'metrics-test',
      MetricName: 'test.temperature',
      MetricUnit: 'Cel',
      ScopeName: 'metrics-test-scope',
      ScopeVersion: '1.2.3',
      Attributes: { room: 'a' },
      Value: 21.5,
    });
    expect(gauges[0]?.ResourceAttributes['host.name']).toBe('node-a');
    const sums = await metricRows<
      Common & { Value: number; AggregationTemporality: number; IsMonotonic: boolean }
    >(running, 'otel_metrics_sum', run);
    expect(
      sums.map((s) => [s.MetricName, s.Value, s.AggregationTemporality, s.IsMonotonic]),
    ).toEqual([
      ['test.queue', -3, 2, false],
      ['test.requests', 7, 2, true],
    ]);
    expect(sums[1]?.Attributes).toEqual({ code: '200' });
    expect(sums[1]?.MetricDescription).toBe('requests served');
  });

  it('stores explicit and exponential histograms bucket for bucket', async () => {
    const [h] = await metricRows<
      Common & {
        Count: number;
        Sum: number;
        Min: number;
        Max: number;
        BucketCounts: number[];
        ExplicitBounds: number[];
      }
    >(running, 'otel_metrics_histogram', run);
    expect(h).toMatchObject({
      MetricName: 'test.latency',
      MetricUnit: 'ms',
      Count: 3,
      Sum: 555,
      Min: 5,
      Max: 500,
      BucketCounts: [1, 1, 1],
      ExplicitBounds: [10, 100],
    });
    const [e] = await metricRows<
      Common & {
        Count: number;
        Sum: number;
        Scale: number;
        ZeroCount: number;
        PositiveOffset: number;
        PositiveBucketCounts: number[];
        NegativeBucketCounts: number[];
        Min: number;
        Max: number;
      }
    >(running, 'otel_metrics_exponential_histogram', run);
    expect(e).toMatchObject({ MetricName: 'test.exp_latency', Count: 3, Sum: 7, Min: 1, Max: 4 });
    // 1, 2 and 4 are powers of two: at any scale each falls in its own bucket, so the counts
    // sum to 3 over the positive buckets and none is negative.
    expect(e?.PositiveBucketCounts.reduce((a, b) => a + b, 0)).toBe(3);
    expect(e?.NegativeBucketCounts.reduce((a, b) => a + b, 0) ?? 0).toBe(0);
    expect(e?.Scale).toBeGreaterThanOrEqual(-10);
  });
});
