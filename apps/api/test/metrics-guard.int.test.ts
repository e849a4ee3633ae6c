import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { metricsJsonToProtobuf } from '../src/ingest/decode-metrics-json';
import type { Running } from '../src/server/serve';
import { JSON_TYPE, PROTO, grpcExport, startServer } from './ingest-support';
import { exportKnownMetrics, metricRows, metricsJson } from './metrics-support';

/**
 * The traces guards hold for metrics: ingest tokens, the body size limit (HTTP and gRPC),
 * clear 400s for undecodable input, and /metrics counters of points received, rejected and
 * stored.
 */

const TOKEN = 'metrics-test-token';
const MAX_BYTES = 64 * 1024;
const METRICS_EXPORT = '/opentelemetry.proto.collector.metrics.v1.MetricsService/Export';
let dir: string;
let running: Running;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tailscope-metrics-guard-'));
  running = await startServer(dir, { ingestTokens: TOKEN, otlpMaxBytes: String(MAX_BYTES) });
});

afterAll(async () => {
  await running.close();
  rmSync(dir, { recursive: true, force: true });
});

const url = () => `${running.urls.otlpHttp}/v1/metrics`;
const auth = { authorization: `Bearer ${TOKEN}` };
const post = (body: Buffer | string, headers: Record<string, string>) =>
  fetch(url(), { method: 'POST', headers, body });

describe('metrics ingest guards', () => {
  it('refuses a missing or wrong token (401 naming it) and stores nothing', async () => {
    const none = await post(metricsJson('no-token'), JSON_TYPE);
    expect(none.status).toBe(401);
    expect(((await none.json()) as { message: string }).message).toMatch(/ingest token/);
    const wrong = await post(metricsJson('no-token'), { ...JSON_TYPE, authorization: 'Bearer x' });
    expect(wrong.status).toBe(401);
    const grpc = await grpcExport(
      running.urls.otlpGrpc,
      metricsJsonToProtobuf(Buffer.from(metricsJson('no-token'))),
      false,
      METRICS_EXPORT,
    );
    expect(grpc.code).toBe(16);
    await running.ingest.flush();
    expect(await metricRows(running, 'otel_metrics_gauge', 'no-token')).toEqual([]);
  });

  it('stores what a real exporter sends with the token', async () => {
    await exportKnownMetrics(new OTLPMetricExporter({ url: url(), headers: auth }), 'token');
    await running.ingest.flush();
    expect(await metricRows(running, 'otel_metrics_sum', 'token')).toHaveLength(2);
  });

  it('answers 413 over the size limit and RESOURCE_EXHAUSTED on gRPC', async () => {
    const big = Buffer.alloc(MAX_BYTES + 1, 0x0a);
    const res = await post(big, { ...PROTO, ...auth });
    expect(res.status).toBe(413);
    const grpc = await grpcExport(running.urls.otlpGrpc, big, false, METRICS_EXPORT);
    // No token on this call: refused before its message is read, as for traces.
    expect([8, 16]).toContain(grpc.code);
  });

  it('answers 400 naming what is wrong, in the request format', async () => {
    const bad = await post(Buffer.from([0x0a, 0x05, 0x01]), { ...PROTO, ...auth });
    expect(bad.status).toBe(400);
    const json = await post('{"resourceMetrics":[{"scopeMetrics":{}}]}', {
      ...JSON_TYPE,
      ...auth,
    });
    expect(json.status).toBe(400);
    expect(((await json.json()) as { message: string }).message).toMatch(
      /resourceMetrics\[0\]\.scopeMetrics: expected an array/,
    );
  });

  it('counts points received, rejected and stored in /metrics', async () => {
    expect((await post(metricsJson('counted', true), { ...JSON_TYPE, ...auth })).status).toBe(200);
    await running.ingest.flush();
    const text = await (await fetch(`${running.urls.api}/metrics`)).text();
    const value = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN);
    expect(
      value(
        /^tailscope_metric_points_rejected_total\{protocol="http",reason="invalid_point"\} (\S+)$/m,
      ),
    ).toBe(1);
    // 5 from the exporter above, 3 valid points here (and the rejected one received).
    expect(value(/^tailscope_metric_points_stored_total (\S+)$/m)).toBe(8);
    expect(value(/^tailscope_metric_points_received_total\{protocol="http"\} (\S+)$/m)).toBe(9);
  });
});
