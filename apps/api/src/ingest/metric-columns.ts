import { ByteSink } from './byte-sink';
import { block, headerFor } from './span-columns';
import { METRIC_KINDS, type MetricKind } from '../store/metrics/tables';

/**
 * Decoded metric data points as ClickHouse Native columns, one PointTable per exporter table
 * (otel_metrics_gauge, _sum, _histogram, _exponential_histogram, _summary). As for spans,
 * LowCardinality and Nested columns are written as their plain types (Map(String, String),
 * Array(...)) and the engine converts on insert. Map and Array columns are their cumulative
 * UInt64 offsets per row, then their data.
 */

type Columns = readonly (readonly [string, string])[];

const COMMON: Columns = [
  ['ResourceAttributes', 'Map(String, String)'],
  ['ResourceSchemaUrl', 'String'],
  ['ScopeName', 'String'],
  ['ScopeVersion', 'String'],
  ['ScopeAttributes', 'Map(String, String)'],
  ['ScopeDroppedAttrCount', 'UInt32'],
  ['ScopeSchemaUrl', 'String'],
  ['ServiceName', 'String'],
  ['MetricName', 'String'],
  ['MetricDescription', 'String'],
  ['MetricUnit', 'String'],
  ['Attributes', 'Map(String, String)'],
  ['StartTimeUnix', 'DateTime64(9)'],
  ['TimeUnix', 'DateTime64(9)'],
];

const EXEMPLARS: Columns = [
  ['Exemplars.FilteredAttributes', 'Array(Map(String, String))'],
  ['Exemplars.TimeUnix', 'Array(DateTime64(9))'],
  ['Exemplars.Value', 'Array(Float64)'],
  ['Exemplars.SpanId', 'Array(String)'],
  ['Exemplars.TraceId', 'Array(String)'],
];

const HISTOGRAM_TAIL: Columns = [
  ['Flags', 'UInt32'],
  ['Min', 'Float64'],
  ['Max', 'Float64'],
  ['AggregationTemporality', 'Int32'],
];

/** Each table's columns in the order its block (and its INSERT column list) carries them. */
export const METRIC_COLUMNS: Record<MetricKind, Columns> = {
  gauge: [...COMMON, ['Value', 'Float64'], ['Flags', 'UInt32'], ...EXEMPLARS],
  sum: [
    ...COMMON,
    ['Value', 'Float64'],
    ['Flags', 'UInt32'],
    ...EXEMPLARS,
    ['AggregationTemporality', 'Int32'],
    ['IsMonotonic', 'Bool'],
  ],
  histogram: [
    ...COMMON,
    ['Count', 'UInt64'],
    ['Sum', 'Float64'],
    ['BucketCounts', 'Array(UInt64)'],
    ['ExplicitBounds', 'Array(Float64)'],
    ...EXEMPLARS,
    ...HISTOGRAM_TAIL,
  ],
  exponentialHistogram: [
    ...COMMON,
    ['Count', 'UInt64'],
    ['Sum', 'Float64'],
    ['Scale', 'Int32'],
    ['ZeroCount', 'UInt64'],
    ['PositiveOffset', 'Int32'],
    ['PositiveBucketCounts', 'Array(UInt64)'],
    ['NegativeOffset', 'Int32'],
    ['NegativeBucketCounts', 'Array(UInt64)'],
    ...EXEMPLARS,
    ...HISTOGRAM_TAIL,
  ],
  summary: [
    ...COMMON,
    ['Count', 'UInt64'],
    ['Sum', 'Float64'],
    ['ValueAtQuantiles.Quantile', 'Array(Float64)'],
    ['ValueAtQuantiles.Value', 'Array(Float64)'],
    ['Flags', 'UInt32'],
  ],
};

const HEADERS: Record<MetricKind, Buffer[]> = {
  gauge: METRIC_COLUMNS.gauge.map(([n, t]) => headerFor(n, t)),
  sum: METRIC_COLUMNS.sum.map(([n, t]) => headerFor(n, t)),
  histogram: METRIC_COLUMNS.histogram.map(([n, t]) => headerFor(n, t)),
  exponentialHistogram: METRIC_COLUMNS.exponentialHistogram.map(([n, t]) => headerFor(n, t)),
  summary: METRIC_COLUMNS.summary.map(([n, t]) => headerFor(n, t)),
};

/** The rows of one table. Sinks a kind does not use stay empty and are never written out. */
export class PointTable {
  rows = 0;
  readonly resOff = new ByteSink(64);
  readonly resKeys = new ByteSink(1024);
  readonly resVals = new ByteSink(1024);
  resCount = 0;
  readonly resSchema = new ByteSink(64);
  readonly scopeName = new ByteSink(64);
  readonly scopeVersion = new ByteSink(64);
  readonly scopeOff = new ByteSink(64);
  readonly scopeKeys = new ByteSink(64);
  readonly scopeVals = new ByteSink(64);
  scopeCount = 0;
  readonly scopeDropped = new ByteSink(64);
  readonly scopeSchema = new ByteSink(64);
  readonly service = new ByteSink(64);
  readonly name = new ByteSink(256);
  readonly description = new ByteSink(256);
  readonly unit = new ByteSink(64);
  readonly attrOff = new ByteSink(64);
  readonly attrKeys = new ByteSink(512);
  readonly attrVals = new ByteSink(512);
  attrCount = 0;
  readonly start = new ByteSink(64);
  readonly time = new ByteSink(64);
  readonly value = new ByteSink(64);
  readonly flags = new ByteSink(64);
  readonly exOff = new ByteSink(64);
  exCount = 0;
  readonly exAttrOff = new ByteSink(16);
  readonly exKeys = new ByteSink(16);
  readonly exVals = new ByteSink(16);
  exAttrCount = 0;
  readonly exTime = new ByteSink(16);
  readonly exValue = new ByteSink(16);
  readonly exSpan = new ByteSink(16);
  readonly exTrace = new ByteSink(16);
  readonly temporality = new ByteSink(16);
  readonly monotonic = new ByteSink(16);
  readonly count = new ByteSink(16);
  readonly sum = new ByteSink(16);
  readonly min = new ByteSink(16);
  readonly max = new ByteSink(16);
  /** BucketCounts / PositiveBucketCounts, ExplicitBounds / NegativeBucketCounts, quantiles. */
  readonly aOff = new ByteSink(16);
  readonly a = new ByteSink(16);
  aCount = 0;
  readonly bOff = new ByteSink(16);
  readonly b = new ByteSink(16);
  bCount = 0;
  readonly scale = new ByteSink(16);
  readonly zeroCount = new ByteSink(16);
  readonly posOffset = new ByteSink(16);
  readonly negOffset = new ByteSink(16);

  constructor(readonly kind: MetricKind) {}

  /** The Native data of one column, by name. */
  private parts(column: string): ByteSink[] {
    const ex = this.exOff;
    switch (column) {
      case 'ResourceAttributes':
        return [this.resOff, this.resKeys, this.resVals];
      case 'ResourceSchemaUrl':
        return [this.resSchema];
      case 'ScopeName':
        return [this.scopeName];
      case 'ScopeVersion':
        return [this.scopeVersion];
      case 'ScopeAttributes':
        return [this.scopeOff, this.scopeKeys, this.scopeVals];
      case 'ScopeDroppedAttrCount':
        return [this.scopeDropped];
      case 'ScopeSchemaUrl':
        return [this.scopeSchema];
      case 'ServiceName':
        return [this.service];
      case 'MetricName':
        return [this.name];
      case 'MetricDescription':
        return [this.description];
      case 'MetricUnit':
        return [this.unit];
      case 'Attributes':
        return [this.attrOff, this.attrKeys, this.attrVals];
      case 'StartTimeUnix':
        return [this.start];
      case 'TimeUnix':
        return [this.time];
      case 'Value':
        return [this.value];
      case 'Flags':
        return [this.flags];
      case 'Exemplars.FilteredAttributes':
        return [ex, this.exAttrOff, this.exKeys, this.exVals];
      case 'Exemplars.TimeUnix':
        return [ex, this.exTime];
      case 'Exemplars.Value':
        return [ex, this.exValue];
      case 'Exemplars.SpanId':
        return [ex, this.exSpan];
      case 'Exemplars.TraceId':
        return [ex, this.exTrace];
      case 'AggregationTemporality':
        return [this.temporality];
      case 'IsMonotonic':
        return [this.monotonic];
      case 'Count':
        return [this.count];
      case 'Sum':
        return [this.sum];
      case 'Min':
        return [this.min];
      case 'Max':
        return [this.max];
      case 'BucketCounts':
      case 'PositiveBucketCounts':
      case 'ValueAtQuantiles.Quantile':
        return [this.aOff, this.a];
      case 'ExplicitBounds':
      case 'NegativeBucketCounts':
        return [this.bOff, this.b];
      case 'ValueAtQuantiles.Value':
        return [this.aOff, this.b];
      case 'Scale':
        return [this.scale];
      case 'ZeroCount':
        return [this.zeroCount];
      case 'PositiveOffset':
        return [this.posOffset];
      case 'NegativeOffset':
        return [this.negOffset];
      default:
        throw new Error(`no data for metrics column ${column}`);
    }
  }

  /** The rows as one Native block, or [] when there are none. */
  block(): Buffer[] {
    if (this.rows === 0) return [];
    const columns = METRIC_COLUMNS[this.kind];
    const data = columns.map(([name]) => this.parts(name).map((s) => s.bytes()));
    return block(HEADERS[this.kind], this.rows, data);
  }
}

/** One PointTable per kind, in METRIC_KINDS order. */
export function pointTables(): PointTable[] {
  return METRIC_KINDS.map((k) => new PointTable(k));
}
