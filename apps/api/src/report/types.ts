import { Type, type Static } from 'typebox';

/**
 * The report document. `schemaVersion` only grows; fields are added, never renamed, so capacity
 * reviews can diff this quarter's report against last quarter's with the same tooling.
 */
export const REPORT_SCHEMA_VERSION = 1;

const Q = Type.Object({
  p50: Type.Number(),
  p95: Type.Number(),
  p99: Type.Number(),
  p999: Type.Number(),
});

/** The parts of GET /api/v1/fanouts a report reads (other fields pass through untouched). */
export const FanoutSummary = Type.Object({
  parentService: Type.String(),
  parentOperation: Type.String(),
  leafService: Type.String(),
  leafOperation: Type.String(),
  requests: Type.Number(),
  width: Type.Object({ p50: Type.Number(), max: Type.Number() }),
  table1: Type.Object({
    oneLeaf: Q,
    p95Leaves: Q,
    allLeaves: Q,
    slowest5pctShareOfP99: Type.Number(),
  }),
  amplification: Type.Object({
    thresholdMs: Type.Number(),
    observedTailProbability: Type.Number(),
    predictedTailProbability: Type.Number(),
    verdict: Type.String(),
  }),
  curve: Type.Array(
    Type.Object({
      width: Type.Number(),
      observed: Type.Optional(Type.Number()),
      predicted: Type.Number(),
    }),
  ),
});
export type FanoutSummary = Static<typeof FanoutSummary>;

export const StragglerRow = Type.Object({
  dimension: Type.String(),
  value: Type.String(),
  calls: Type.Number(),
  stragglers: Type.Number(),
  trafficShare: Type.Number(),
  stragglerShare: Type.Number(),
  riskRatio: Type.Union([Type.Number(), Type.Null()]),
  riskRatioLow: Type.Union([Type.Number(), Type.Null()]),
  riskRatioHigh: Type.Union([Type.Number(), Type.Null()]),
  pValue: Type.Number(),
  qValue: Type.Number(),
  cause: Type.Boolean(),
  p99DropMs: Type.Union([Type.Number(), Type.Null()]),
});
export type StragglerRow = Static<typeof StragglerRow>;

export const Stragglers = Type.Object({
  tailThresholdMs: Type.Number(),
  tailFanouts: Type.Number(),
  rows: Type.Array(StragglerRow),
});
export type Stragglers = Static<typeof Stragglers>;

const Interval = Type.Object({ value: Type.Number(), low: Type.Number(), high: Type.Number() });

export const WhatIfResult = Type.Object({
  requests: Type.Number(),
  baseline: Type.Object({
    p50: Type.Number(),
    p90: Type.Number(),
    p99: Type.Number(),
    p999: Type.Number(),
  }),
  whatIf: Type.Object({ p50: Interval, p90: Interval, p99: Interval, p999: Interval }),
  extraLoad: Type.Number(),
  probation: Type.Optional(
    Type.Object({
      hosts: Type.Array(Type.Object({ host: Type.String(), seconds: Type.Number() })),
      capacityRemoved: Type.Number(),
    }),
  ),
  completeness: Type.Optional(Type.Number()),
  notes: Type.Array(Type.String()),
});
export type WhatIfResult = Static<typeof WhatIfResult>;

export const StoreStats = Type.Object({
  spans: Type.Number(),
  traces: Type.Number(),
  services: Type.Number(),
  oldestUnixNano: Type.Union([Type.String(), Type.Null()]),
  newestUnixNano: Type.Union([Type.String(), Type.Null()]),
});
export type StoreStats = Static<typeof StoreStats>;

export interface PolicyRun {
  /** A short human label, e.g. "hedge at the call p95". */
  label: string;
  policy: Record<string, unknown>;
  result: WhatIfResult;
}

export interface OperationReport {
  fanout: FanoutSummary;
  stragglers: Stragglers;
  whatIf: PolicyRun[];
}

export interface Report {
  schemaVersion: number;
  generatedAt: string;
  tool: { name: 'tailscope'; version: string };
  range: { fromMs: number; toMs: number };
  store: StoreStats;
  operations: OperationReport[];
}
