/**
 * The whole-request answer on one thread (`simulateRequestWhatIf`), the head and percentiles
 * every answer shares, and the parts of the requests a split answer plans and replays.
 */
export {
  baselineOf,
  percentileReads,
  requestAnswer,
  type RequestHead,
  requestOutcome,
  requestReplays,
  type RequestRun,
  type SortedOutputs,
  startRequestRun,
} from './answer';
export {
  mergeParts,
  mergePoolParts,
  PART_REQUESTS,
  partHead,
  type PartOffsets,
  POOL_PART_REQUESTS,
  poolPart,
  type PoolPart,
  replayPart,
  requestParts,
} from './parts';
export {
  type EdgeTarget,
  type PreparedRequestWhatIf,
  prepareRequestWhatIf,
  replaysIn,
  type RequestSimulateOptions,
  type RequestWhatIf,
  type RequestWhatIfResult,
  simulateRequestWhatIf,
  targetMask,
} from './simulate';
