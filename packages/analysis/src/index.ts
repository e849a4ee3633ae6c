// @tailscope/analysis: pure, synchronous statistics (README.md). The entry exports what the apps'
// and collectors' sources run on, nothing else: a name only benchmarks and tests use is in the
// second entry, @tailscope/analysis/testing (testing.ts); a name nobody outside uses stays inside.
// test/entry.test.ts checks both lists against the imports.
export { type LeafCalls, type Quantiles, type Random } from './types';
export { at } from './at';
export {
  type EdgeTarget,
  type ParameterSpec,
  POLICY_KINDS,
  POLICY_SPECS,
  type PolicyKind,
  type PreparedRequestWhatIf,
  prepareRequestWhatIf,
  replyBuffers,
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
  type SpanDescriptor,
  SplitDriver,
  type SplitExecutor,
  type SplitReply,
  SplitRunner,
  type SplitScratch,
  type SplitTask,
  type WhatIfPolicy,
  WhatIfPolicyError,
  type WhatIfResult,
} from './whatif';
export { quantileInclusive } from './quantile';
export { murmurHash3 } from './hash';
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
export { fanoutPickHashes, fanoutTimes, slowestShare, table1 } from './fanout-stats';
export {
  amplification,
  amplificationCurve,
  amplificationFromCounts,
  type WidthCount,
} from './amplification';
export { attributeStragglers, type Attribution, type AttributionOptions } from './attribution';
export { hostEpisodes, type WindowStats } from './hosts';
export { type SpanRecord } from './span-record';
export { type Call, extractCalls } from './calls';
export { type SkewPairCount } from './skew';
export { dominantStructure, type EdgeSummary } from './edge-summary';
export { detectFanouts } from './detect';
export { fanoutVerdict } from './queueing';
export { packLeafCalls, unpackLeafCalls } from './leaf-pack';
export { backgroundOfCalls, type BackgroundWindow } from './background';
export {
  criticalPath,
  markSyncAnswers,
  nameClientWaits,
  type NamedPathSpan,
  waitingLabel,
} from './critical-path';
export { addToBand, type BandTotals, compareBands, emptyBand } from './critical-path-bands';
export { adjustedCount, OT_TRACESTATE_KEY, THRESHOLD_SUBKEY } from './sampling';
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
  mergeSortedHistograms,
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
  type HostSignals,
  type IncidentEpisode,
  rankRootCauses,
  withMetricEvidence,
  withRootEpisodes,
} from './incidents';
export {
  CapacityChangeError,
  capacityTrees,
  machinesForSlo,
  MAX_CAPACITY_CHANGES,
  MAX_LOAD_FACTOR,
  MAX_MACHINES,
  prepareCapacity,
  PREVIEW_REQUESTS,
  sampleCapacity,
  simulateCapacityWhatIf,
  type CapacityChange,
  type CapacityWhatIf,
  type CpuReading,
  type LoadChange,
  type MachinesForSlo,
  type PreparedCapacity,
} from './capacity';
export { cumulativeRates } from './metric-rates';
export { episodeCause } from './episode-cause';
export {
  gcBackgroundWindows,
  judgedHosts,
  measuredSharingModes,
  withMeasuredModes,
} from './measured-modes';
export {
  MEASURED_RULES,
  measuredGcEvidence,
  measuredModeEvidence,
  type MeasuredHostEvidence,
} from './measured-evidence';
export { hostPeerEvidence, type PeerEvidence } from './host-evidence';
export {
  EvidenceSeriesBuilder,
  evidenceRows,
  type EvidenceRowOf,
  type EvidenceSeries,
} from './evidence-series';
export { HOST_CPUS, HOST_IDLE, neighbourBusy } from './neighbour-busy';
export {
  CONTAINER_CPU_LIMIT,
  CONTAINER_CPU_USAGE,
  containerSaturation,
} from './container-saturation';
