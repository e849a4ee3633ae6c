// @tailscope/analysis: pure, synchronous statistics (README.md). The entry exports what the apps,
// the benchmarks and the other packages import, nothing else: a name nobody outside uses stays
// inside (a module's own entry, such as whatif/index.ts, may export more for the package's other
// modules). A new name the apps need is added to its list here.
export { type LeafCalls, type Quantiles, type Random } from './types';
export { at } from './at';
export {
  bootstrapPercentiles,
  buildReplayIndex,
  buildRequestPlan,
  type EdgeTarget,
  firstAnswerAllLeavesMs,
  latencyQuantile,
  leafCallsFromRows,
  type ParameterSpec,
  POLICY_KINDS,
  POLICY_SPECS,
  type PolicyKind,
  type PreparedRequestWhatIf,
  prepareRequestWhatIf,
  quantileNoiseFloor,
  randomTraceSpans,
  replayHedge,
  replyBuffers,
  type RequestPlan,
  type RequestSimulateOptions,
  type RequestTrees,
  requestTreesFromColumns,
  requestTreesFromSpans,
  type RequestWhatIfResult,
  resolvePolicy,
  ROOT_PARENT_KEY,
  type SimulateOptions,
  simulateRequestWhatIf,
  simulateWhatIf,
  SPAN_KIND_CODE,
  type SpanColumns,
  spanColumnsFor,
  spanColumnsFromSpans,
  type SpanDescriptor,
  SplitDriver,
  type SplitExecutor,
  type SplitReply,
  SplitRunner,
  type SplitScratch,
  type SplitTask,
  synthesizeLeafCalls,
  synthesizeRequests,
  targetMask,
  type WhatIfEstimate,
  type WhatIfPolicy,
  WhatIfPolicyError,
  type WhatIfReplay,
  type WhatIfResult,
} from './whatif';
export { quantileInclusive, sortAscending } from './quantile';
export { murmurHash3, randomFromSeed } from './hash';
export { SeededRandom } from './random';
export { ownEntry } from './own-keys';
export {
  ABSENT_ATTRIBUTE,
  attributeKey,
  BACKGROUND_KEY,
  BACKGROUND_LOOKBACK_NS,
  CALL_SYSTEM_KEYS,
  CLIENT_KINDS,
  CONSUMER_KINDS,
  type Dimension,
  EDGE_SLACK_NS,
  HOST_KEYS,
  HTTP_METHOD_KEYS,
  HTTP_TARGET_KEYS,
  INTERNAL_KINDS,
  MAX_WRAPPER_HOPS,
  parseDimension,
  PEER_SERVICE_KEY,
  PRODUCER_KINDS,
  SEND_JITTER_NS,
  SERVER_ADDRESS_KEY,
  SERVER_KINDS,
  SHARING_MODE_KEY,
  UNKNOWN_HOST,
  UNKNOWN_MODE,
} from './conventions';
export { fanoutPickHashes, fanoutTimes, slowestShare, table1, widthStats } from './fanout-stats';
export {
  amplification,
  amplificationCurve,
  amplificationFromCounts,
  type WidthCount,
} from './amplification';
export { attributeStragglers, type Attribution, type AttributionOptions } from './attribution';
export { hostEpisodes, hostWindowStats, type WindowStats } from './hosts';
export { type SpanRecord } from './span-record';
export { type Call, dedupeSpans, extractCalls } from './calls';
export { type SkewPairCount, skewPairs } from './skew';
export { groupRequestEdges } from './structure';
export { dominantStructure, type EdgeSummary, lowerMedian, summarizeEdges } from './edge-summary';
export { type DetectedOperation, detectFanouts } from './detect';
export { fanoutVerdict, queuedStragglers, queuedTail } from './queueing';
export { packLeafCalls, unpackLeafCalls } from './leaf-pack';
export { backgroundOfCalls, type BackgroundWindow } from './background';
export { selectFanouts } from './select-fanouts';
export {
  criticalPath,
  markSyncAnswers,
  nameClientWaits,
  type NamedPathSpan,
  waitingLabel,
} from './critical-path';
export { addToBand, type BandTotals, compareBands, emptyBand } from './critical-path-bands';
export { adjustedCount, OT_TRACESTATE_KEY, spanWeight, THRESHOLD_SUBKEY } from './sampling';
export {
  type DetectedEpisode,
  detectEpisodes,
  episodeWindowSeconds,
  type Series,
  type SeriesWindow,
} from './episodes';
export { mergeSameFault } from './episodes-merge';
export {
  addFineHistogram,
  EPISODE_FINE_BINS_PER_OCTAVE,
  windowFromBins,
  windowFromFineHistogram,
} from './episode-histogram';
export {
  CAUSE_TIE_MARGIN,
  type CauseSpan,
  criticalPathDifference,
  type EpisodeGroup,
  groupEpisodes,
  rankRootCauses,
} from './incidents';
export {
  CapacityChangeError,
  capacityTrees,
  capacityWhatIf,
  logNormal,
  machinesForSlo,
  MAX_CAPACITY_CHANGES,
  MAX_LOAD_FACTOR,
  MAX_MACHINES,
  prepareCapacity,
  PREVIEW_REQUESTS,
  queueTrees,
  sampleCapacity,
  simulateCapacityWhatIf,
  type CapacityChange,
  type CapacityWhatIf,
  type LoadChange,
  type MachinesForSlo,
  type PreparedCapacity,
} from './capacity';
export { cumulativeRates } from './metric-rates';
export { episodeCause } from './episode-cause';
export { gcBackgroundWindows, measuredSharingModes, withMeasuredModes } from './measured-modes';
export { HOST_CPUS, HOST_IDLE, neighbourBusy } from './neighbour-busy';
