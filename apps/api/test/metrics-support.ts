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
