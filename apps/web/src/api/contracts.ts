// The /api/v1 shapes the dashboard reads (field names as in the API's OpenAPI document) and their
// decoders. Times are milliseconds (float) unless a name says Nano.
import {
  arr,
  bool,
  nullable,
  num,
  numOr,
  obj,
  optional,
  record,
  str,
  withDefault,
  type Decoder,
} from './decode';

export interface Stats {
  spans: number;
  traces: number;
  services: number;
  oldestUnixNano: string | null;
  newestUnixNano: string | null;
  ingestSpansPerSecond: number;
}
export const decodeStats: Decoder<Stats> = obj<Stats>({
  spans: num,
  traces: num,
  services: num,
  oldestUnixNano: nullable(str),
  newestUnixNano: nullable(str),
  ingestSpansPerSecond: withDefault(num, 0),
});

export interface Quantiles {
  p50: number;
  p95: number;
  p99: number;
  p999: number;
}
const quantiles = obj<Quantiles>({ p50: num, p95: num, p99: num, p999: num });

export interface CurvePoint {
  width: number;
  observed?: number;
  predicted: number;
}

export interface FanoutOp {
  parentService: string;
  parentOperation: string;
  leafService: string;
  leafOperation: string;
  requests: number;
  width: { p50: number; max: number };
  table1: {
    oneLeaf: Quantiles;
    p95Leaves: Quantiles;
    allLeaves: Quantiles;
    slowest5pctShareOfP99: number;
  };
  amplification: {
    thresholdMs: number;
    observedTailProbability: number;
    predictedTailProbability: number;
    verdict: string;
    /** F(t): share of calls at most thresholdMs (so 1 - F(t) is a call's tail probability). */
    singleCallCdf?: number | undefined;
  };
  curve: CurvePoint[];
}
export const decodeFanouts: Decoder<{ fanouts: FanoutOp[] }> = obj({
  fanouts: arr(
    obj<FanoutOp>({
      parentService: str,
      parentOperation: str,
      leafService: str,
      leafOperation: str,
      requests: num,
      width: obj({ p50: num, max: num }),
      table1: obj({
        oneLeaf: quantiles,
        p95Leaves: quantiles,
        allLeaves: quantiles,
        slowest5pctShareOfP99: num,
      }),
      amplification: obj({
        thresholdMs: num,
        observedTailProbability: num,
        predictedTailProbability: num,
        verdict: str,
        singleCallCdf: optional(num),
      }),
      curve: withDefault(
        arr(obj<CurvePoint>({ width: num, observed: optional(num), predicted: num })),
        [],
      ),
    }),
  ),
});

export interface StragglerRow {
  dimension: string;
  value: string;
  calls: number;
  stragglers: number;
  trafficShare: number;
  stragglerShare: number;
  riskRatio: number;
  riskRatioLow: number;
  riskRatioHigh: number;
  pValue: number;
  qValue: number;
  cause: boolean;
  p99DropMs: number;
}
export interface Stragglers {
  tailThresholdMs: number;
  tailFanouts: number;
  rows: StragglerRow[];
}
export const decodeStragglers: Decoder<Stragglers> = obj<Stragglers>({
  tailThresholdMs: numOr(NaN),
  tailFanouts: num,
  rows: arr(
    obj<StragglerRow>({
      dimension: str,
      value: str,
      calls: num,
      stragglers: num,
      trafficShare: num,
      stragglerShare: num,
      // null: no ratio can be formed (no calls, or no stragglers, on one side).
      riskRatio: numOr(NaN),
      riskRatioLow: numOr(0),
      riskRatioHigh: numOr(Infinity),
      pValue: numOr(1),
      qValue: numOr(1),
      cause: bool,
      p99DropMs: numOr(NaN),
    }),
  ),
});

export interface SpanEvent {
  name: string;
  timeUnixNano: string;
  attributes: Record<string, unknown>;
}
export interface TraceSpan {
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: string;
  service: string;
  startTimeUnixNano: string;
  durationNs: number;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
  events: SpanEvent[];
  status: { code: string; message: string };
}
export interface Trace {
  traceId: string;
  spans: TraceSpan[];
}
export const decodeTrace: Decoder<Trace> = obj<Trace>({
  traceId: str,
  spans: arr(
    obj<TraceSpan>({
      spanId: str,
      parentSpanId: withDefault(str, ''),
      name: str,
      kind: withDefault(str, 'unspecified'),
      service: withDefault(str, ''),
      startTimeUnixNano: str,
      durationNs: num,
      attributes: withDefault(record, {}),
      resource: withDefault(record, {}),
      events: withDefault(
        arr(obj<SpanEvent>({ name: str, timeUnixNano: str, attributes: withDefault(record, {}) })),
        [],
      ),
      status: withDefault(obj({ code: str, message: withDefault(str, '') }), {
        code: 'unset',
        message: '',
      }),
    }),
  ),
});
