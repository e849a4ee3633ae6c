import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AggregationType,
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import type { Running } from '../src/server/serve';
import { ident, sql } from '../src/store';

/** Shared by the metrics ingest tests: real OTel JS metrics through a real exporter. */

/**
 * Records one known set of instruments (gauge, counter, up-down counter, explicit and
 * exponential histograms) under resource attribute `test.run` = run, and exports them once.
 */
export async function exportKnownMetrics(exporter: PushMetricExporter, run: string): Promise<void> {
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({
    resource: resourceFromAttributes({
      'service.name': 'metrics-test',
      'host.name': 'node-a',
      'test.run': run,
    }),
    readers: [reader],
    views: [
      {
        instrumentName: 'test.exp_latency',
        aggregation: { type: AggregationType.EXPONENTIAL_HISTOGRAM },
      },
    ],
  });
  const meter = provider.getMeter('metrics-test-scope', '1.2.3');
  meter.createGauge('test.temperature', { unit: 'Cel' }).record(21.5, { room: 'a' });
  meter.createCounter('test.requests', { description: 'requests served' }).add(7, { code: 200 });
  meter.createUpDownCounter('test.queue').add(-3);
  const h = meter.createHistogram('test.latency', {
    unit: 'ms',
    advice: { explicitBucketBoundaries: [10, 100] },
  });
  for (const v of [5, 50, 500]) h.record(v);
  const e = meter.createHistogram('test.exp_latency');
  for (const v of [1, 2, 4]) e.record(v);
  // Shutdown collects and exports once (a flush before it would export the same points twice).
  await provider.shutdown();
}

/** Rows of one metrics table for one run (JSON-typed through the engine's JSON output). */
export function metricRows<T>(running: Running, table: string, run: string): Promise<T[]> {
  return running.store.query<T>(sql`
    SELECT * EXCEPT (StartTimeUnix, TimeUnix), toString(TimeUnix) AS time
    FROM ${ident(table)}
    WHERE ResourceAttributes['test.run'] = ${run}
    ORDER BY MetricName`);
}

const T = '1767607200000000000';
const TRACE = '5b8efff798038103d269b633813fc60c';
const SPAN = 'eee19b7ec3c1b174';

/**
 * One OTLP/JSON request with what SDKs rarely send: a summary, exemplars with trace and span
 * ids, an int gauge, an exponential histogram with negative buckets, and (when `badTime`) one
 * gauge point in the year 2200 that must be rejected alone. Resource `test.run` = run.
 */
export function metricsJson(run: string, badTime = false): string {
  const attrs = [{ key: 'pod', value: { stringValue: 'p-1' } }];
  const exemplar = {
    timeUnixNano: T,
    asDouble: 0.25,
    traceId: TRACE,
    spanId: SPAN,
    filteredAttributes: [{ key: 'user', value: { intValue: '42' } }],
  };
  const gaugePoints: unknown[] = [
    { timeUnixNano: T, asInt: '-17', attributes: attrs, exemplars: [exemplar], flags: 1 },
  ];
  if (badTime) gaugePoints.push({ timeUnixNano: '7258118400000000000', asDouble: 1 });
  return JSON.stringify({
    resourceMetrics: [
      {
        resource: {
          attributes: [
            { key: 'service.name', value: { stringValue: 'json-svc' } },
            { key: 'test.run', value: { stringValue: run } },
          ],
        },
        schemaUrl: 'https://opentelemetry.io/schemas/1.26.0',
        scopeMetrics: [
          {
            scope: {
              name: 'json-scope',
              version: '0.1',
              attributes: [{ key: 'lib', value: { boolValue: true } }],
            },
            metrics: [
              { name: 'json.gauge', unit: '1', gauge: { dataPoints: gaugePoints } },
              {
                name: 'json.summary',
                summary: {
                  dataPoints: [
                    {
                      startTimeUnixNano: '1767607190000000000',
                      timeUnixNano: T,
                      count: '4',
                      sum: 10.5,
                      quantileValues: [
                        { quantile: 0.5, value: 2 },
                        { quantile: 0.99, value: 'Infinity' },
                      ],
                    },
                  ],
                },
              },
              {
                name: 'json.exp',
                exponentialHistogram: {
                  aggregationTemporality: 'AGGREGATION_TEMPORALITY_DELTA',
                  dataPoints: [
                    {
                      timeUnixNano: T,
                      count: '6',
                      sum: -3,
                      scale: -2,
                      zeroCount: '1',
                      positive: { offset: 3, bucketCounts: ['1', '2'] },
                      negative: { offset: -1, bucketCounts: ['2'] },
                      min: -4,
                      max: 9,
                    },
                  ],
                },
              },
            ],
          },
        ],
      },
    ],
  });
}

export const EXEMPLAR_IDS = { traceId: TRACE, spanId: SPAN };
