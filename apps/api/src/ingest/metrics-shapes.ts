import { WIRE_I64, WIRE_LEN, WIRE_VARINT } from './proto-reader';
import type { MessageShape } from './limits';

/**
 * Wire types of the OTLP metrics messages' fields (index = field number), so a known field
 * with another wire type is a 400 naming it, as for traces (limits.ts). Repeated numeric
 * fields (bucket counts, bounds) may come packed (LEN) or not; the decoder takes both and
 * the shape names the packed form.
 */

const V = WIRE_VARINT;
const L = WIRE_LEN;
const F = WIRE_I64;

export const METRICS_REQUEST: MessageShape = {
  name: 'ExportMetricsServiceRequest',
  fields: [undefined, ['resource_metrics', L]],
};
export const RESOURCE_METRICS: MessageShape = {
  name: 'ResourceMetrics',
  fields: [undefined, ['resource', L], ['scope_metrics', L], ['schema_url', L]],
};
export const SCOPE_METRICS: MessageShape = {
  name: 'ScopeMetrics',
  fields: [undefined, ['scope', L], ['metrics', L], ['schema_url', L]],
};
export const METRIC: MessageShape = {
  name: 'Metric',
  fields: [
    undefined,
    ['name', L],
    ['description', L],
    ['unit', L],
    undefined,
    ['gauge', L],
    undefined,
    ['sum', L],
    undefined,
    ['histogram', L],
    ['exponential_histogram', L],
    ['summary', L],
    ['metadata', L],
  ],
};
/** Gauge, Sum, Histogram, ExponentialHistogram and Summary share these field numbers. */
export const METRIC_DATA: MessageShape = {
  name: 'Metric data',
  fields: [undefined, ['data_points', L], ['aggregation_temporality', V], ['is_monotonic', V]],
};
export const NUMBER_POINT: MessageShape = {
  name: 'NumberDataPoint',
  fields: [
    undefined,
    undefined,
    ['start_time_unix_nano', F],
    ['time_unix_nano', F],
    ['as_double', F],
    ['exemplars', L],
    ['as_int', F],
    ['attributes', L],
    ['flags', V],
  ],
};
export const HISTOGRAM_POINT: MessageShape = {
  name: 'HistogramDataPoint',
  fields: [
    undefined,
    undefined,
    ['start_time_unix_nano', F],
    ['time_unix_nano', F],
    ['count', F],
    ['sum', F],
    ['bucket_counts', L],
    ['explicit_bounds', L],
    ['exemplars', L],
    ['attributes', L],
    ['flags', V],
    ['min', F],
    ['max', F],
  ],
};
export const EXP_HISTOGRAM_POINT: MessageShape = {
  name: 'ExponentialHistogramDataPoint',
  fields: [
    undefined,
    ['attributes', L],
    ['start_time_unix_nano', F],
    ['time_unix_nano', F],
    ['count', F],
    ['sum', F],
    ['scale', V],
    ['zero_count', F],
    ['positive', L],
    ['negative', L],
    ['flags', V],
    ['exemplars', L],
    ['min', F],
    ['max', F],
    ['zero_threshold', F],
  ],
};
export const BUCKETS: MessageShape = {
  name: 'ExponentialHistogramDataPoint.Buckets',
  fields: [undefined, ['offset', V], ['bucket_counts', L]],
};
export const SUMMARY_POINT: MessageShape = {
  name: 'SummaryDataPoint',
  fields: [
    undefined,
    undefined,
    ['start_time_unix_nano', F],
    ['time_unix_nano', F],
    ['count', F],
    ['sum', F],
    ['quantile_values', L],
    ['attributes', L],
    ['flags', V],
  ],
};
export const VALUE_AT_QUANTILE: MessageShape = {
  name: 'SummaryDataPoint.ValueAtQuantile',
  fields: [undefined, ['quantile', F], ['value', F]],
};
export const EXEMPLAR: MessageShape = {
  name: 'Exemplar',
  fields: [
    undefined,
    undefined,
    ['time_unix_nano', F],
    ['as_double', F],
    ['span_id', L],
    ['trace_id', L],
    ['as_int', F],
    ['filtered_attributes', L],
  ],
};
