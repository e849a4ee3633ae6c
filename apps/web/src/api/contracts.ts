// The /api/v1 shapes the dashboard reads, as views of the REST contract (@tailscope/contracts,
// types only: no schema code in the bundle), and their decoders. A view keeps the contract's
// field names and types; where it differs, it says so: nulls the API sends for "no value"
// become NaN (or a stated default) at the edge, and fields the dashboard does not read are left
// out. Times are milliseconds (float) unless a name says Nano.
import type * as C from '@tailscope/contracts';
import {
  arr,
  bool,
  nullable,
  num,
  numOr,
  obj,
  oneOf,
  optional,
  record,
  str,
  withDefault,
  type Decoder,
} from './decode';

// Ingest's own state (replay backlog, log damage, dead letters) and the store's set-up (read-only,
// optional tables, retention), the age of the kept store figures and when the server warmed the
// first answers are not shown by the dashboard.
export type Stats = Omit<
  C.StatsResponse,
  | 'replayBacklogSpans'
  | 'walDamage'
  | 'deadLetter'
  | 'readOnly'
  | 'accelerators'
  | 'retentionDays'
  | 'storeFiguresAgeMs'
  | 'warmedUnixMs'
>;
/** Whether statistics were weighted by OTel sampling (docs/analysis.md "Sampling"). */
export const decodeSampling: Decoder<C.SamplingInfo> = obj<C.SamplingInfo>({
  weighted: bool,
  spansWithoutSamplingInfo: num,
});

export const decodeStats: Decoder<Stats> = obj<Stats>({
  spans: num,
  traces: num,
  services: num,
  oldestUnixNano: nullable(str),
  newestUnixNano: nullable(str),
  settledUnixNano: optional(nullable(str)),
  ingestSpansPerSecond: withDefault(num, 0),
  listen: optional(obj({ api: str, otlpHttp: str, otlpGrpc: str })),
  sampling: optional(decodeSampling),
});

export type Quantiles = C.Quantiles;
const quantiles = obj<Quantiles>({ p50: num, p95: num, p99: num, p999: num });

type CurvePoint = C.CurvePoint;

type FanoutStructureFields = 'structure' | 'concurrency' | 'poolSize' | 'queueWaitMs';
export type FanoutOp = Omit<C.Fanout, 'amplification' | FanoutStructureFields> & {
  /** Absent from servers older than the structure analysis (#12). */
  structure?: 'parallel' | 'pool' | undefined;
  concurrency?: { p50: number; max: number } | undefined;
  poolSize?: number | undefined;
  queueWaitMs?: Quantiles | undefined;
  amplification: Pick<
    C.Amplification,
    'thresholdMs' | 'observedTailProbability' | 'predictedTailProbability'
  > & {
    /** Read as text: a newer server may name more verdicts (model/operations.ts verdictKind). */
    verdict: string;
    /** F(t): share of calls at most thresholdMs (so 1 - F(t) is a call's tail probability). */
    singleCallCdf?: number | undefined;
  };
};
export type EdgeStructureSummary = C.EdgeStructureSummary;
export interface Fanouts {
  fanouts: FanoutOp[];
  /** Why no fan-out was found, when none was. */
  hint?: string | undefined;
  edges?: EdgeStructureSummary[] | undefined;
}
const edgeStructure = oneOf(['parallel', 'pool', 'sequential', 'single'] as const);
export const decodeFanouts: Decoder<Fanouts> = obj<Fanouts>({
  hint: optional(str),
  edges: optional(
    arr(
      obj<EdgeStructureSummary>({
        parentService: str,
        parentOperation: str,
        leafService: str,
        leafOperation: str,
        requests: num,
        structure: edgeStructure,
      }),
    ),
  ),
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
        arr(
          obj<CurvePoint>({
            width: num,
            observed: optional(num),
            predicted: num,
            fanouts: optional(num),
          }),
        ),
        [],
      ),
      structure: optional(oneOf(['parallel', 'pool'] as const)),
      concurrency: optional(obj({ p50: num, max: num })),
      poolSize: optional(num),
      queueWaitMs: optional(quantiles),
    }),
  ),
});

/** A host's reading behind a measured cause; `baseline` NaN when the API sends null (none). */
export type MeasuredHostEvidence = Omit<C.MeasuredHostEvidence, 'baseline'> & { baseline: number };
export type MeasuredCause = Omit<C.MeasuredCause, 'evidence'> & {
  evidence: MeasuredHostEvidence[];
};
/** A host cause's evidence; `baseline` and `ratio` NaN when the API sends null (no peer). */
export type HostCauseEvidence = Omit<C.HostCauseEvidence, 'baseline' | 'ratio'> & {
  baseline: number;
  ratio: number;
};
/** A row of GET /api/v1/stragglers with its nulls decoded to numbers (see decodeStragglers). */
export type StragglerRow = Omit<
  C.StragglerRow,
  | 'riskRatio'
  | 'riskRatioLow'
  | 'riskRatioHigh'
  | 'p99DropMs'
  | 'explainedBy'
  | 'measured'
  | 'evidence'
  | 'evidenceNote'
> & {
  riskRatio: number;
  riskRatioLow: number;
  riskRatioHigh: number;
  p99DropMs: number;
  /** The evidence behind a value measured from metrics (a sharing mode, background gc). */
  measured?: MeasuredCause | undefined;
  /** A host cause's metrics against the leaf's other hosts. */
  evidence?: HostCauseEvidence[] | undefined;
  /** Why a cause has no evidence. */
  evidenceNote?: string | undefined;
};
const decodeSeries = obj<HostCauseEvidence['series']>({
  fromMs: num,
  windowMs: num,
  values: arr(nullable(num)),
});
const decodeHostCauseEvidence: Decoder<HostCauseEvidence> = obj<HostCauseEvidence>({
  signal: str,
  host: str,
  metric: str,
  value: num,
  baseline: numOr(NaN),
  ratio: numOr(NaN),
  peers: num,
  windows: num,
  series: decodeSeries,
});
const decodeMeasured: Decoder<MeasuredCause> = obj<MeasuredCause>({
  rule: str,
  hosts: num,
  evidence: arr(
    obj<MeasuredHostEvidence>({
      host: str,
      signal: str,
      metric: str,
      value: num,
      baseline: numOr(NaN),
      level: num,
      windowsAbove: num,
      windows: num,
      series: decodeSeries,
    }),
  ),
});
export type Stragglers = Pick<C.StragglersResponse, 'tailFanouts'> & {
  /** NaN when the API sends null (no fan-outs). */
  tailThresholdMs: number;
  rows: StragglerRow[];
  /** Whether counts and shares were weighted by OTel sampling. */
  sampling?: C.SamplingInfo | undefined;
};
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
      measured: optional(decodeMeasured),
      evidence: optional(arr(decodeHostCauseEvidence)),
      evidenceNote: optional(str),
    }),
  ),
  sampling: optional(decodeSampling),
});

type SpanEvent = C.SpanEvent;
export type TraceSpan = Pick<
  C.Span,
  | 'spanId'
  | 'parentSpanId'
  | 'name'
  | 'kind'
  | 'service'
  | 'startTimeUnixNano'
  | 'durationNs'
  | 'attributes'
  | 'resource'
  | 'events'
  | 'links'
  | 'status'
>;
export type Trace = Pick<C.TraceResponse, 'traceId' | 'criticalPath' | 'truncated'> & {
  spans: TraceSpan[];
  /**
   * 'summary': the spans came without their details (fields=summary; only the attributes
   * naming a call's host and peer): a span's details come from the one-span route.
   */
  detail?: 'summary' | undefined;
  /** A summary's first root span in full (servers from stop 45). */
  rootSpan?: TraceSpan | undefined;
};

const STATUS_CODES: readonly C.StatusCode[] = ['unset', 'ok', 'error'];

/** One span in full: an element of a full answer's spans, or GET .../spans/{spanId}. */
export const decodeTraceSpan: Decoder<TraceSpan> = obj<TraceSpan>({
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
  links: withDefault(
    arr(
      obj<C.Span['links'][number]>({
        traceId: str,
        spanId: str,
        traceState: withDefault(str, ''),
        attributes: withDefault(record, {}),
      }),
    ),
    [],
  ),
  status: withDefault(obj({ code: oneOf(STATUS_CODES), message: withDefault(str, '') }), {
    code: 'unset',
    message: '',
  }),
});

export const decodeTrace: Decoder<Trace> = obj<Trace>({
  traceId: str,
  // Servers older than issue #13 send no critical path: nothing is highlighted.
  criticalPath: withDefault(arr(obj<C.CriticalPathSegment>({ spanId: str, selfMs: num })), []),
  truncated: withDefault(bool, false),
  spans: arr(decodeTraceSpan),
  detail: optional(oneOf(['summary'] as const)),
  rootSpan: optional(decodeTraceSpan),
});

/** GET /api/v1/edges (#12): every caller -> callee edge and how its repeated calls ran. */
export type Edge = Pick<
  C.Edge,
  | 'parentService'
  | 'parentOperation'
  | 'leafService'
  | 'leafOperation'
  | 'requests'
  | 'callsPerRequest'
  | 'structure'
  | 'concurrency'
  | 'poolSize'
  | 'callLatency'
  | 'queueWaitMs'
  | 'shareOfParent'
>;
export type Edges = Pick<C.EdgesResponse, 'edges' | 'duplicates' | 'skew' | 'hint'>;
export const decodeEdges: Decoder<Edges> = obj<Edges>({
  edges: arr(
    obj<Edge>({
      parentService: str,
      parentOperation: str,
      leafService: str,
      leafOperation: str,
      requests: num,
      callsPerRequest: obj({ p50: num, max: num }),
      structure: edgeStructure,
      concurrency: obj({ p50: num, max: num }),
      poolSize: optional(num),
      callLatency: quantiles,
      queueWaitMs: optional(quantiles),
      shareOfParent: quantiles,
    }),
  ),
  duplicates: withDefault(num, 0),
  skew: withDefault(
    arr(obj<C.SkewPair>({ clientHost: str, serverHost: str, calls: num, maxMs: num })),
    [],
  ),
  hint: optional(str),
});
