// The what-if simulator's public surface (re-exported by the package entry).
export {
  simulateWhatIf,
  type SimulateOptions,
  type WhatIfPercentiles,
  type WhatIfReplay,
  type WhatIfResult,
} from './fanout/simulate';
export { DEFAULT_BOOTSTRAP_SAMPLES, type Estimate as WhatIfEstimate } from './estimate/bootstrap';
export {
  POLICY_KINDS,
  POLICY_SPECS,
  WhatIfPolicyError,
  type CanaryPolicy,
  type AvoidHostsPolicy,
  type GoodEnoughPolicy,
  type PoolPolicy,
  type HedgePolicy,
  type ParameterSpec,
  type PolicyKind,
  type PolicySpec,
  type ProbationPolicy,
  type ResolvedPolicy,
  type SyncBackgroundPolicy,
  type TiedPolicy,
  type WhatIfPolicy,
} from './policies/policy';
export { checkParameter, resolvePolicy } from './policies/resolve-policy';
export {
  leafCallsFromRows,
  synthesizeLeafCalls,
  type LeafCallRow,
  type SyntheticLeafCallsOptions,
} from './fanout/synthetic';
// Building blocks, for callers that replay one data set many times (a delay slider in the
// worker keeps one ReplayIndex) and for the benchmark.
export {
  buildReplayIndex,
  buildStaticIndex,
  type ReplayIndex,
  type ReplayIndexOptions,
  type StaticIndex,
} from './policies/replay-index';
export { preparePolicy, type PolicyPrep } from './policies/policy-prep';
export { replayHedge, type HedgeReplay } from './policies/hedge';
export { replayProbation, type ProbationReplay } from './policies/probation';
export { bootstrapPercentiles, bootstrapWeightedQuantiles } from './estimate/bootstrap';
export { weightedWhatIf, type WeightedOutputs } from './estimate/weighted-outputs';
export { latencyQuantile } from './estimate/latency-quantile';
export { quantileNoiseFloor, type NoiseFloorOptions } from './estimate/noise-floor';
export { firstAnswerAllLeavesMs, type FirstAnswerTimes } from './fanout/first-answer';
// Whole-request replay (issue #14).
export {
  simulateRequestWhatIf,
  prepareRequestWhatIf,
  targetMask,
  type EdgeTarget,
  type PreparedRequestWhatIf,
  type RequestSimulateOptions,
  type RequestWhatIf,
  type RequestWhatIfResult,
} from './request/answer/simulate';
// The compiled plan (request-plan.ts), for checks of the shape programs on real traces.
export { buildRequestPlan, type PlanOptions } from './request/plan/plan';
// The same answer split into parts of the requests, planned and replayed on several threads.
export {
  simulateRequestWhatIfSplit,
  startSplit,
  splitReplay,
  mergedSplitReplay,
  finishSplit,
  poolSplitReplay,
  splitSortInputs,
  splitBaseInputs,
  splitPrepWork,
  splitPrepScan,
  splitBootstrapReads,
  type BootstrapReads,
  type SplitAnswer,
  type SplitReplay,
} from './request/split/split';
export {
  PART_REQUESTS,
  requestParts,
  partHead,
  mergeParts,
  replayPart,
  poolPart,
  POOL_PART_REQUESTS,
  type PartOffsets,
  type PoolPart,
} from './request/answer/parts';
export { mergedCallRoom, planCalls, writePartCalls } from './request/split/part-calls';
export { recordedRequestMs } from './request/replay/adjust';
export { ArenaMemory } from './request/arena';
export { percentileReads, type RequestHead, type SortedOutputs } from './request/answer/answer';
export { sortedCopy } from './estimate/radix-sort';
export { sortedAtRanges } from './estimate/select-ranges';
export type { RequestPlan } from './request/plan/plan';
export {
  requestTreesFromSpans,
  STRUCTURE_CODE,
  type RequestTrees,
  type TreeEdge,
} from './request/trees/trees';
export { requestTreesFromColumns } from './request/trees/columns';
export { randomTraceSpans } from './request/trees/random-traces';
export {
  spanColumnsFor,
  spanColumnsFromSpans,
  spanDescriptor,
  ROOT_PARENT_KEY,
  SPAN_KIND_CODE,
  type SpanColumns,
  type SpanDescriptor,
} from './request/trees/span-columns';
export {
  synthesizeRequests,
  type SyntheticRequestsOptions,
} from './request/trees/synthetic-requests';
// The closed-loop load model of the whole-request replay (a serialized operation, N clients).
export type { LoopReport } from './request/loop/loop-report';
