import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { ExportResultCode } from '@opentelemetry/core';
import { otlpFixtures } from '../src';
import type { Running } from '../src/server/serve';
import { exportSpans, metric, parseMetrics, type Sample } from './access-support';
import { JSON_TYPE, postOtlp, startServer } from './ingest-support';

/**
 * GET /metrics of a real server parses as Prometheus text, and its numbers move with what the
 * server did: spans received and stored per protocol, spans rejected by reason, refused requests
 * by outcome, insert and request latency histograms, queue, log and engine gauges.
 */

let dir: string;
let running: Running;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tailscope-access-metrics-'));
  running = await startServer(dir, { host: '127.0.0.1' });
});
afterAll(async () => {
  await running.close();
  rmSync(dir, { recursive: true, force: true });
});

async function scrape(): Promise<Sample[]> {
  const res = await fetch(`${running.urls.api}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseMetrics(await res.text());
}

describe('GET /metrics', () => {
  it('names every documented metric', async () => {
    // A histogram shows once it has observed something: this scrape is the first request.
    await scrape();
    const names = new Set((await scrape()).map((s) => s.name.replace(/_(bucket|sum|count)$/, '')));
    for (const name of [
      'tailscope_write_queue_spans',
      'tailscope_write_queue_bytes',
      'tailscope_wal_bytes',
      'tailscope_wal_replay_backlog_spans',
      'tailscope_dead_letter_batches',
      'tailscope_dead_letter_spans',
      'tailscope_engine_memory_bytes',
      'tailscope_ingest_writer_stuck',
      'tailscope_http_request_duration_seconds',
      'process_resident_memory_bytes',
    ])
      expect(names, name).toContain(name);
  });

  it('counts spans received, stored and rejected, by protocol and reason', async () => {
    const before = await scrape();
    const http = await exportSpans(
      new ProtoExporter({ url: `${running.urls.otlpHttp}/v1/traces` }),
      30,
      11,
    );
    const grpc = await exportSpans(
      new GrpcExporter({ url: `http://${running.urls.otlpGrpc}` }),
      20,
      12,
    );
    expect([http.code, grpc.code]).toEqual([ExportResultCode.SUCCESS, ExportResultCode.SUCCESS]);
    // Two valid spans and one with an all-zero trace id: a partial success.
    const partial = await postOtlp(
      running,
      otlpFixtures.otlpJson([
        otlpFixtures.jsonSpan('5b8efff798038103d269b633813fc60c', 1),
        otlpFixtures.jsonSpan('5b8efff798038103d269b633813fc60c', 2),
        otlpFixtures.jsonSpan('0'.repeat(32), 3),
      ]),
      JSON_TYPE,
    );
    expect(partial.status).toBe(200);
    const refused = await postOtlp(running, 'not json', JSON_TYPE);
    expect(refused.status).toBe(400);
    await running.ingest.flush();
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) =>
      metric(after, name, labels) - metric(before, name, labels);

    expect(delta('tailscope_spans_received_total', { protocol: 'http' })).toBe(33);
    expect(delta('tailscope_spans_received_total', { protocol: 'grpc' })).toBe(20);
    expect(
      delta('tailscope_spans_rejected_total', { protocol: 'http', reason: 'invalid_span' }),
    ).toBe(1);
    expect(delta('tailscope_spans_stored_total')).toBe(52);
    expect(delta('tailscope_otlp_requests_total', { protocol: 'http', outcome: 'accepted' })).toBe(
      2,
    );
    expect(delta('tailscope_otlp_requests_total', { protocol: 'grpc', outcome: 'accepted' })).toBe(
      1,
    );
    expect(
      delta('tailscope_otlp_requests_total', { protocol: 'http', outcome: 'undecodable' }),
    ).toBe(1);
    expect(
      delta('tailscope_insert_duration_seconds_count', { table: 'otel_traces' }),
    ).toBeGreaterThan(0);
    // Everything acknowledged is in the store: the queue is empty, the log holds the requests.
    expect(metric(after, 'tailscope_write_queue_spans')).toBe(0);
    expect(metric(after, 'tailscope_write_queue_bytes')).toBe(0);
    expect(metric(after, 'tailscope_wal_bytes')).toBeGreaterThan(0);
    expect(metric(after, 'tailscope_wal_replay_backlog_spans')).toBe(0);
    expect(metric(after, 'tailscope_engine_memory_bytes')).toBeGreaterThan(0);
  });

  it('times REST requests per route pattern and status', async () => {
    const before = await scrape();
    for (let i = 0; i < 3; i++) await fetch(`${running.urls.api}/api/v1/stats`);
    await fetch(`${running.urls.api}/api/v1/traces/${'a'.repeat(32)}`);
    await fetch(`${running.urls.api}/api/v1/fanouts?from=nonsense`);
    const after = await scrape();
    const delta = (labels: Record<string, string>) =>
      metric(after, 'tailscope_http_request_duration_seconds_count', labels) -
      metric(before, 'tailscope_http_request_duration_seconds_count', labels);
    expect(delta({ route: '/api/v1/stats', method: 'GET', status_code: '200' })).toBe(3);
    // The route's pattern, not the trace id: labels stay a bounded set.
    expect(delta({ route: '/api/v1/traces/:traceId', status_code: '404' })).toBe(1);
    expect(delta({ route: '/api/v1/fanouts', status_code: '400' })).toBe(1);
    expect(after.some((s) => s.labels.route?.includes('a'.repeat(32)))).toBe(false);
  });
});
