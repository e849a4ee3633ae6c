// The what-if simulator's public surface (re-exported by the package entry).
export {
  simulateWhatIf,
  type SimulateOptions,
  type WhatIfPercentiles,
  type WhatIfReplay,
  type WhatIfResult,
} from './simulate';
export { DEFAULT_BOOTSTRAP_SAMPLES, type Estimate as WhatIfEstimate } from './bootstrap';
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
} from './policy';
export { checkParameter, resolvePolicy } from './resolve-policy';
export {
  leafCallsFromRows,
  synthesizeLeafCalls,
  type LeafCallRow,
  type SyntheticLeafCallsOptions,
} from './synthetic';
// Building blocks, for callers that replay one data set many times (a delay slider in the
// worker keeps one ReplayIndex) and for the benchmark.
export {
  buildReplayIndex,
  buildStaticIndex,
  type ReplayIndex,
  type ReplayIndexOptions,
  type StaticIndex,
} from './replay-index';
export { preparePolicy, type PolicyPrep } from './policy-prep';
export { replayHedge, type HedgeReplay } from './hedge';
export { replayProbation, type ProbationReplay } from './probation';
export { bootstrapPercentiles, bootstrapWeightedQuantiles } from './bootstrap';
export { weightedWhatIf, type WeightedOutputs } from './weighted-outputs';
export { latencyQuantile } from './latency-quantile';
export { quantileNoiseFloor, type NoiseFloorOptions } from './noise-floor';
export { firstAnswerAllLeavesMs, type FirstAnswerTimes } from './first-answer';
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
} from './simulate-request';
// The compiled plan (request-plan.ts), for checks of the shape programs on real traces.
export { buildRequestPlan, type PlanOptions } from './request-plan';
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
} from './request-split';
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
} from './request-parts';
export { mergedCallRoom, planCalls, writePartCalls } from './request-part-calls';
export { recordedRequestMs } from './request-adjust';
export { ArenaMemory } from './arena';
export { percentileReads, type RequestHead, type SortedOutputs } from './request-answer';
export { sortedCopy } from './radix-sort';
export { sortedAtRanges } from './select-ranges';
export type { RequestPlan } from './request-plan';
export {
  requestTreesFromSpans,
  STRUCTURE_CODE,
  type RequestTrees,
  type TreeEdge,
} from './request-trees';
export { requestTreesFromColumns } from './request-trees-columns';
export { randomTraceSpans } from './random-traces';
export {
  spanColumnsFor,
  spanColumnsFromSpans,
  spanDescriptor,
  ROOT_PARENT_KEY,
  SPAN_KIND_CODE,
  type SpanColumns,
  type SpanDescriptor,
} from './span-columns';
export { synthesizeRequests, type SyntheticRequestsOptions } from './synthetic-requests';
// The closed-loop load model of the whole-request replay (a serialized operation, N clients).
export type { LoopReport } from './loop-report';
