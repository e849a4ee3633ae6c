import {
  attributeStragglers,
  CapacityChangeError,
  requestTreesFromSpans,
  simulateRequestWhatIf,
  simulateWhatIf,
  WhatIfPolicyError,
  type Attribution,
  type AttributionOptions,
  type EdgeTarget,
  type LeafCalls,
  type RequestSimulateOptions,
  type SpanRecord,
  type RequestWhatIfResult,
  type SimulateOptions,
  type WhatIfPolicy,
  type WhatIfResult,
} from '@tailscope/analysis';
import { runCapacity, type CapacityJob, type CapacityResult } from './capacity-job';
import {
  runRequestColumns,
  type RequestColumnsJob,
  type RequestColumnsResult,
} from '../cache/request-cache';

/**
 * The analyses that run off the main thread: pure `@tailscope/analysis` calls on one leaf
 * operation's calls. Shared by the worker (which runs them) and the pool (which types them).
 */
export type AnalysisJob =
  | { kind: 'whatif'; calls: LeafCalls; policy: WhatIfPolicy; options: SimulateOptions }
  | { kind: 'stragglers'; calls: LeafCalls; options: AttributionOptions }
  | {
      kind: 'whatif-request';
      /** The requests' spans; their call trees are built here (requestTreesFromSpans). */
      spans: SpanRecord[];
      target: EdgeTarget;
      policy: WhatIfPolicy;
      options: RequestSimulateOptions;
    }
  // The slider's whole-request replay: trees and plan cached on its one thread (request-cache.ts).
  | RequestColumnsJob
  // Load and machine-count what-ifs (issue 29).
  | CapacityJob;

export interface AnalysisResults {
  whatif: WhatIfResult;
  stragglers: Attribution;
  'whatif-request': RequestWhatIfResult;
  'whatif-request-columns': RequestColumnsResult;
  capacity: CapacityResult;
}

export type AnalysisResult = AnalysisResults[AnalysisJob['kind']];

/** An analysis error as it crosses the thread boundary (a policy error keeps its field). */
export interface JobError {
  name: string;
  message: string;
  field?: string;
}

/** Runs one job; the replayed samples (`allLeavesMs`) stay here, only the contract's fields go back. */
export function runJob(job: AnalysisJob): AnalysisResult {
  if (job.kind === 'whatif-request-columns') return runRequestColumns(job);
  if (job.kind === 'capacity') return runCapacity(job);
  if (job.kind === 'stragglers') return attributeStragglers(job.calls, job.options);
  if (job.kind === 'whatif-request')
    return simulateRequestWhatIf(
      requestTreesFromSpans(job.spans),
      job.target,
      job.policy,
      job.options,
    );
  const { allLeavesMs: _samples, ...result } = simulateWhatIf(job.calls, job.policy, job.options);
  return result;
}

export function toJobError(err: unknown): JobError {
  if (err instanceof WhatIfPolicyError || err instanceof CapacityChangeError)
    return { name: err.name, message: err.message, field: err.field };
  if (err instanceof Error) return { name: err.name, message: err.message };
  return { name: 'Error', message: String(err) };
}
