import { METRIC_KINDS, METRICS_TABLES } from '../store/metrics/tables';
import { WINDOWS_TABLE } from '../store/metrics/evidence-windows';
import { countPoints, decodeMetricsRequest } from './decode-metrics';
import { metricsJsonToProtobuf } from './decode-metrics-json';
import { METRIC_COLUMNS } from './metric-columns';
import type { Signal } from './signal';

/**
 * Metrics through the same ingest path as traces: `POST /v1/metrics` and
 * MetricsService/Export, their own write-ahead log (`ingest/metrics-wal`) and dead letters, one
 * Native block per exporter table.
 */
export const METRICS_SIGNAL: Signal = {
  name: 'metrics',
  items: 'data point(s)',
  plural: 'metric data points',
  rejectedField: 'rejectedDataPoints',
  grpcPath: '/opentelemetry.proto.collector.metrics.v1.MetricsService/Export',
  walDir: 'metrics-wal',
  deadLetterDir: 'metrics-dead-letter',
  decode(payload, limits) {
    const d = decodeMetricsRequest(payload, limits);
    return {
      accepted: d.accepted,
      rejected: d.rejected,
      rejectReason: d.rejectReason,
      dropMessage: d.dropMessage,
      blocks: () => d.tables.map((t) => t.block()),
      release: () => undefined,
    };
  },
  count: countPoints,
  fromJson: metricsJsonToProtobuf,
  tables: () =>
    METRIC_KINDS.map((k) => ({
      table: METRICS_TABLES[k],
      columns: METRIC_COLUMNS[k].map(([n]) => n),
    })),
  // The views' target too: an insert's pre-aggregate rows are on disk when it returns.
  prepare: () => [...METRIC_KINDS.map((k) => METRICS_TABLES[k]), WINDOWS_TABLE],
  counts: (o) => ({
    received: (p, n) => {
      o.pointsReceived(p, n);
    },
    invalid: (p, n) => {
      o.pointsRejected(p, 'invalid_point', n);
    },
    queueFull: (p, n) => {
      o.pointsRejected(p, 'queue_full', n);
    },
    stored: (n) => {
      o.pointsStored(n);
    },
  }),
};
