import type { Fanout } from './fanouts';
import type { StatsResponse } from './stats';
import type { StragglersResponse } from './stragglers';
import type { Estimate, WhatIfResponse } from './whatif';

/**
 * The report document (`tailscope report --format json`). `schemaVersion` only grows; fields
 * are added, never renamed, so capacity reviews can diff this quarter's report against last
 * quarter's with the same tooling. Its parts are the API's answers as they came.
 */
export const REPORT_SCHEMA_VERSION = 2;

export interface PolicyRun {
  /** A short human label, e.g. "hedge at the call p95". */
  label: string;
  policy: Record<string, unknown>;
  result: WhatIfResponse;
}

/** A load what-if of an operation's requests (issue 29): `factor` times today's traffic. */
export interface CapacityRun {
  factor: number;
  /** The root p99 objective the machines were searched for, ms. */
  sloMs: number;
  result: WhatIfResponse;
}

export interface OperationReport {
  fanout: Fanout;
  stragglers: StragglersResponse;
  whatIf: PolicyRun[];
  /** Load what-ifs at 1x, 1.5x and 2x traffic (issue 29); absent when they could not run. */
  capacity?: CapacityRun[];
}

export interface Report {
  schemaVersion: number;
  generatedAt: string;
  tool: { name: 'tailscope'; version: string };
  range: { fromMs: number; toMs: number };
  store: StatsResponse;
  operations: OperationReport[];
  /** Since schemaVersion 2: the one-page summary the report opens with (same numbers). */
  summary?: ReportSummary;
}

/** What one replayed policy would buy and cost, at today's traffic (schemaVersion 2). */
export interface PolicySummary {
  label: string;
  kind: string;
  /** The replayed all-leaves p99, ms, with its 95% bootstrap interval. */
  p99Ms: Estimate;
  /** Replayed minus today's p99, ms (negative: faster), interval from the replay's. */
  p99ChangeMs: Estimate;
  /** Extra calls per recorded call. */
  extraLoad: number;
  /** Share of host-seconds taken out of service (probation), else 0. */
  capacityRemoved: number;
  /** extraLoad x the leaf's hosts: machines of extra work at today's traffic. */
  extraMachines: number;
  /** capacityRemoved x the leaf's hosts: machines out of service on average. */
  removedMachines: number;
  /** The whole p99 interval lies below today's p99. */
  clearGain: boolean;
}

export type RecommendationVerdict = 'adopt' | 'keep' | 'insufficient-data';

export interface OperationSummary {
  /** 1 = act on this first. */
  rank: number;
  parentService: string;
  parentOperation: string;
  leafService: string;
  leafOperation: string;
  requests: number;
  /** Leaf hosts seen (host values of the straggler attribution other than unknown). */
  hosts: number;
  widthP50: number;
  /** The fleet's tail now, ms: all-leaves p50/p99/p99.9 and one call's p99. */
  tail: { p50Ms: number; p99Ms: number; p999Ms: number; oneCallP99Ms: number };
  /** Fan-outs in the tail (all-leaves time above the p99 threshold). */
  tailRequests: number;
  policies: PolicySummary[];
  recommendation: {
    verdict: RecommendationVerdict;
    /** The label of the policy to adopt; null unless verdict is adopt. */
    policy: string | null;
    reason: string;
  };
  /** The same in words, one paragraph. */
  text: string;
}

/** One service on the requests' path at each traffic factor (issue 29). */
export interface CapacityServiceSummary {
  service: string;
  at: {
    factor: number;
    /** The service's call p99 with its interval, ms; null when it saturates. */
    p99Ms: Estimate | null;
    /** Instances needed to keep the root p99 under the objective; null when not reached. */
    machines: number | null;
    instances: number;
    saturated: boolean;
    extrapolated: boolean;
  }[];
}

/** Capacity of one operation's requests: root p99 and machines per service at each factor. */
export interface CapacitySummary {
  leafService: string;
  leafOperation: string;
  sloMs: number;
  root: { factor: number; p99Ms: Estimate | null; saturatesFirst: string | null }[];
  services: CapacityServiceSummary[];
  text: string;
}

export interface ReportSummary {
  /** Ranked: adoptable gains first (largest p99 cut first), then keep, then too little data. */
  operations: OperationSummary[];
  /** One line per operation, ranked, in words and numbers. */
  lines: string[];
  /** Issue 29: per operation's requests, p99 and machines at 1x, 1.5x and 2x traffic. */
  capacity?: CapacitySummary[];
}
