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
// The thread steps' own pieces (the index, the sorts) and what the steps pass along.
export { buildStaticIndex, type PolicyPrep, type StaticIndex } from './policies';
export { sortedAtRanges, sortedCopy } from './estimate';
export {
  bootstrapPercentiles,
  latencyQuantile,
  quantileNoiseFloor,
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
// The same answer split into parts planned and replayed on several threads (apps/api's
// whatif-worker drives them).
export {
  ArenaMemory,
  PART_REQUESTS,
  POOL_PART_REQUESTS,
  finishSplit,
  mergeParts,
  mergedCallRoom,
  mergedSplitReplay,
  partHead,
  percentileReads,
  planCalls,
  poolPart,
  poolSplitReplay,
  recordedRequestMs,
  replayPart,
  requestParts,
  splitBaseInputs,
  splitBootstrapReads,
  splitPrepScan,
  splitPrepWork,
  splitSortInputs,
  startSplit,
  writePartCalls,
  type BootstrapReads,
  type PartOffsets,
  type PoolPart,
  type RequestHead,
  type SortedOutputs,
  type SplitAnswer,
  type SplitReplay,
} from './request';
