import type { Fanout } from './fanouts';
import type { StatsResponse } from './stats';
import type { StragglersResponse } from './stragglers';
import type { WhatIfResponse } from './whatif';

/**
 * The report document (`tailscope report --format json`). `schemaVersion` only grows; fields
 * are added, never renamed, so capacity reviews can diff this quarter's report against last
 * quarter's with the same tooling. Its parts are the API's answers as they came.
 */
export const REPORT_SCHEMA_VERSION = 1;

export interface PolicyRun {
  /** A short human label, e.g. "hedge at the call p95". */
  label: string;
  policy: Record<string, unknown>;
  result: WhatIfResponse;
}

export interface OperationReport {
  fanout: Fanout;
  stragglers: StragglersResponse;
  whatIf: PolicyRun[];
}

export interface Report {
  schemaVersion: number;
  generatedAt: string;
  tool: { name: 'tailscope'; version: string };
  range: { fromMs: number; toMs: number };
  store: StatsResponse;
  operations: OperationReport[];
}
