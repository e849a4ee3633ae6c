import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricsJsonToProtobuf } from '../src/ingest/decode-metrics-json';
import type { Running } from '../src/server/serve';
import { sql } from '../src/store';
import { JSON_TYPE, PROTO, startServer } from './ingest-support';
import { EXEMPLAR_IDS, metricRows, metricsJson } from './metrics-support';

/**
 * What the SDK exporters do not send (summaries, exemplars, int values, negative exponential
 * buckets, a point out of range) as OTLP/JSON and as the same request in protobuf: exact values
 * in every column, and the bad point rejected alone with a partial success.
 */

let dir: string;
let running: Running;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tailscope-metrics-json-'));
  running = await startServer(dir);
});

afterAll(async () => {
  await running.close();
  rmSync(dir, { recursive: true, force: true });
});

const post = (body: Buffer | string, headers: Record<string, string>) =>
  fetch(`${running.urls.otlpHttp}/v1/metrics`, { method: 'POST', headers, body });

describe.each([
  ['json', (run: string) => post(metricsJson(run, true), JSON_TYPE)],
  [
    'protobuf',
    (run: string) => post(metricsJsonToProtobuf(Buffer.from(metricsJson(run, true))), PROTO),
  ],
])('an OTLP metrics request in %s', (enc, send) => {
  const run = `json-${enc}`;
  let answer: Response;
  beforeAll(async () => {
    answer = await send(run);
    await running.ingest.flush();
  });

  it('stores the valid points and reports the bad one as partial success', async () => {
    expect(answer.status).toBe(200);
    const message =
      '1 data point(s) rejected: time out of range (must be before 2200-01-01T00:00:00Z and below 2^63 ns)';
    if (enc === 'json')
      expect(await answer.json()).toEqual({
        partialSuccess: { rejectedDataPoints: '1', errorMessage: message },
      });
    else expect(Buffer.from(await answer.arrayBuffer()).toString('latin1')).toContain(message);
  });

  it('keeps an int gauge, its flags and its exemplar linked to its trace', async () => {
    const rows = await metricRows<Record<string, unknown>>(running, 'otel_metrics_gauge', run);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      ServiceName: 'json-svc',
      MetricName: 'json.gauge',
      MetricUnit: '1',
      ResourceSchemaUrl: 'https://opentelemetry.io/schemas/1.26.0',
      ScopeName: 'json-scope',
      ScopeVersion: '0.1',
      ScopeAttributes: { lib: 'true' },
      Attributes: { pod: 'p-1' },
      Value: -17,
      Flags: 1,
      time: '2026-01-05 10:00:00.000000000',
      'Exemplars.TraceId': [EXEMPLAR_IDS.traceId],
      'Exemplars.SpanId': [EXEMPLAR_IDS.spanId],
      'Exemplars.Value': [0.25],
      'Exemplars.FilteredAttributes': [{ user: '42' }],
    });
  });

  it('keeps a summary with its quantiles, infinity included', async () => {
    const [s] = await metricRows<Record<string, unknown>>(running, 'otel_metrics_summary', run);
    expect(s).toMatchObject({
      MetricName: 'json.summary',
      Count: 4,
      Sum: 10.5,
      'ValueAtQuantiles.Quantile': [0.5, 0.99],
      // JSON output has no infinity: the engine says it is one.
      'ValueAtQuantiles.Value': [2, null],
    });
    const [inf] = await running.store.query<{ inf: number[] }>(sql`
      SELECT arrayMap(v -> isInfinite(v), ValueAtQuantiles.Value) AS inf
      FROM otel_metrics_summary WHERE ResourceAttributes['test.run'] = ${run}`);
    expect(inf?.inf).toEqual([0, 1]);
  });

  it('keeps an exponential histogram with offsets and negative buckets', async () => {
    const [e] = await metricRows<Record<string, unknown>>(
      running,
      'otel_metrics_exponential_histogram',
      run,
    );
    expect(e).toMatchObject({
      MetricName: 'json.exp',
      Count: 6,
      Sum: -3,
      Scale: -2,
      ZeroCount: 1,
      PositiveOffset: 3,
      PositiveBucketCounts: [1, 2],
      NegativeOffset: -1,
      NegativeBucketCounts: [2],
      Min: -4,
      Max: 9,
      AggregationTemporality: 1,
    });
  });
});
