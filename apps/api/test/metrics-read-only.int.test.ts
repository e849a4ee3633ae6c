import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../src/store';
import { selectSumRates } from '../src/store/metrics/sums';

/**
 * Read-only over a sums table a Collector wrote, in the newer exporter release's form (times as
 * `DateTime`, `MetricName` LowCardinality, ORDER BY with cityHash64(Attributes)); written out
 * here, not taken from schema.ts, so the reader meets a table Tailscope did not make.
 */

const dir = mkdtempSync(join(tmpdir(), 'tailscope-metrics-ro-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const COLLECTOR_SUM = `CREATE TABLE otel_metrics_sum (
    ResourceAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    ResourceSchemaUrl String CODEC(ZSTD(1)),
    ScopeName String CODEC(ZSTD(1)),
    ScopeVersion String CODEC(ZSTD(1)),
    ScopeAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    ScopeDroppedAttrCount UInt32 CODEC(ZSTD(1)),
    ScopeSchemaUrl String CODEC(ZSTD(1)),
    ServiceName LowCardinality(String) CODEC(ZSTD(1)),
    MetricName LowCardinality(String) CODEC(ZSTD(1)),
    MetricDescription String CODEC(ZSTD(1)),
    MetricUnit String CODEC(ZSTD(1)),
    Attributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    StartTimeUnix DateTime CODEC(Delta, ZSTD(1)),
    TimeUnix DateTime CODEC(Delta, ZSTD(1)),
    Value Float64 CODEC(ZSTD(1)),
    Flags UInt32 CODEC(ZSTD(1)),
    Exemplars Nested (
        FilteredAttributes Map(LowCardinality(String), String),
        TimeUnix DateTime,
        Value Float64,
        SpanId String,
        TraceId String
    ) CODEC(ZSTD(1)),
    AggregationTemporality Int32 CODEC(ZSTD(1)),
    IsMonotonic Boolean CODEC(Delta, ZSTD(1))
) ENGINE = MergeTree()
PARTITION BY toDate(TimeUnix)
ORDER BY (ServiceName, MetricName, toStartOfHour(TimeUnix), cityHash64(Attributes), TimeUnix)
SETTINGS index_granularity=8192, ttl_only_drop_parts = 1`;

describe('metrics read-only over a Collector table', () => {
  it('reads a cumulative sum written with DateTime times as rates', async () => {
    const writer = openStore({ dataDir: dir });
    try {
      await writer.client.command({ query: COLLECTOR_SUM });
      await writer.client.command({
        query: `INSERT INTO otel_metrics_sum (ServiceName, MetricName, Attributes, StartTimeUnix,
          TimeUnix, Value, AggregationTemporality, IsMonotonic) VALUES
          ('checkout', 'http.requests', {'code': '200'}, 1767607000, 1767607200, 1000, 2, true),
          ('checkout', 'http.requests', {'code': '200'}, 1767607000, 1767607260, 1600, 2, true)`,
      });
    } finally {
      await writer.close();
    }
    const ro = openStore({ dataDir: dir, readOnly: true });
    try {
      const series = await selectSumRates(ro, {
        metricName: 'http.requests',
        fromNs: 1767600000n * 1_000_000_000n,
        toNs: 1767700000n * 1_000_000_000n,
        maxSeries: 10,
        maxPoints: 10,
      });
      expect(series).toEqual([
        {
          serviceName: 'checkout',
          resource: {},
          attributes: { code: '200' },
          timeNs: ['1767607260000000000'],
          perSecond: [10],
          resets: 0,
        },
      ]);
    } finally {
      await ro.close();
    }
  });
});
