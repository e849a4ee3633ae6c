/**
 * The what-if simulator: recorded latencies replayed under a tail-tolerance policy (hedge,
 * tied, probation, pool, ...), for one fan-out (`fanout/`) or for whole requests (`request/`).
 * This entry exports what the apps and the benchmarks import, nothing else (the package entry
 * re-exports it); the folders' insides may change freely. docs/whatif.md says what the numbers
 * mean; docs/architecture.md how the folders depend on one another.
 */

// Policies: their specs, their resolution, their errors.
export {
  POLICY_KINDS,
  POLICY_SPECS,
  WhatIfPolicyError,
  resolvePolicy,
  type ParameterSpec,
  type PolicyKind,
  type WhatIfPolicy,
} from './policies';

// One fan-out's replay (the dashboard's worker, the API's jobs) and its synthetic leaf calls.
export {
  simulateWhatIf,
  firstAnswerAllLeavesMs,
  leafCallsFromRows,
  synthesizeLeafCalls,
  type SimulateOptions,
  type WhatIfReplay,
  type WhatIfResult,
} from './fanout';
// Building blocks, for the benchmark (one index replayed many times) and the validation.
export { buildReplayIndex, replayHedge } from './policies';
export {
  bootstrapPercentiles,
  latencyQuantile,
  quantileNoiseFloor,
  // The O(n) radix orders, for the capacity model's millions of arrivals (capacity/).
  sortedOrder,
  type Estimate as WhatIfEstimate,
} from './estimate';

// Whole requests (issue #14): their trees, built from spans or columns, and the answer.
export {
  requestTreesFromSpans,
  requestTreesFromColumns,
  randomTraceSpans,
  synthesizeRequests,
  spanColumnsFor,
  spanColumnsFromSpans,
  ROOT_PARENT_KEY,
  SPAN_KIND_CODE,
  type RequestTrees,
  type SpanColumns,
  type SpanDescriptor,
  simulateRequestWhatIf,
  prepareRequestWhatIf,
  targetMask,
  buildRequestPlan,
  type EdgeTarget,
  type PreparedRequestWhatIf,
  type RequestPlan,
  type RequestSimulateOptions,
  type RequestWhatIfResult,
} from './request';
// The same answer on several threads: the driver and its schedule, over an executor that
// apps/api supplies on worker_threads (one SplitRunner per thread); localExecutor runs it here.
export {
  SplitDriver,
  SplitRunner,
  localExecutor,
  replyBuffers,
  type SplitExecutor,
  type SplitReply,
  type SplitScratch,
  type SplitTask,
} from './request';
