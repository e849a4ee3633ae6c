/**
 * The whole-request replay (issue #14): request trees (`trees/`), the recorded re-timing of
 * ancestors (`replay/`), the compiled plan (`plan/`), closed-loop load (`loop/`), the answer on
 * one thread (`answer/`) and split into parts for several (`split/`).
 */
export {
  mergeParts,
  PART_REQUESTS,
  partHead,
  percentileReads,
  POOL_PART_REQUESTS,
  poolPart,
  prepareRequestWhatIf,
  replayPart,
  requestParts,
  simulateRequestWhatIf,
  targetMask,
  type EdgeTarget,
  type PartOffsets,
  type PoolPart,
  type PreparedRequestWhatIf,
  type RequestHead,
  type RequestSimulateOptions,
  type RequestWhatIfResult,
  type SortedOutputs,
} from './answer';
export { ArenaMemory } from './arena';
export { buildRequestPlan, type RequestPlan } from './plan';
export { recordedRequestMs } from './replay';
export {
  finishSplit,
  mergedCallRoom,
  mergedSplitReplay,
  planCalls,
  poolSplitReplay,
  splitBaseInputs,
  splitBootstrapReads,
  splitPrepScan,
  splitPrepWork,
  splitSortInputs,
  startSplit,
  writePartCalls,
  type BootstrapReads,
  type SplitAnswer,
  type SplitReplay,
} from './split';
export {
  randomTraceSpans,
  requestTreesFromColumns,
  requestTreesFromSpans,
  ROOT_PARENT_KEY,
  SPAN_KIND_CODE,
  spanColumnsFor,
  spanColumnsFromSpans,
  synthesizeRequests,
  type RequestTrees,
  type SpanColumns,
  type SpanDescriptor,
} from './trees';
