/**
 * The whole-request replay (issue #14): request trees (`trees/`), the recorded re-timing of
 * ancestors (`replay/`), the compiled plan (`plan/`), closed-loop load (`loop/`), the answer on
 * one thread (`answer/`) and split into parts for several (`split/`).
 */
export {
  prepareRequestWhatIf,
  simulateRequestWhatIf,
  targetMask,
  type EdgeTarget,
  type PreparedRequestWhatIf,
  type RequestSimulateOptions,
  type RequestWhatIfResult,
} from './answer';
export { buildRequestPlan, type RequestPlan } from './plan';
export {
  localExecutor,
  replyBuffers,
  SplitDriver,
  SplitRunner,
  type SplitExecutor,
  type SplitReply,
  type SplitScratch,
  type SplitTask,
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
