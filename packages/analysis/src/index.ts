// @tailscope/analysis: pure, synchronous statistics (README.md). The entry exports what the apps,
// the benchmarks and the other packages import, nothing else: a name nobody outside uses stays
// inside. Attribution, episodes, critical path, calls and sampling still re-export whole while
// they are being reworked; the what-if wing's entry (whatif/index.ts) is already trimmed.
export { type LeafCalls, type Quantiles, type Random } from './types';
export { at } from './at';
export * from './whatif';
export { quantileInclusive, sortAscending } from './quantile';
export { murmurHash3, randomFromSeed } from './hash';
export { SeededRandom } from './random';
export { ownEntry, emptyRecord } from './own-keys';
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
export * from './attribution';
export { hostEpisodes, hostWindowStats, type WindowStats } from './hosts';
export { type SpanRecord } from './span-record';
export * from './calls';
export { type SkewPairCount, skewPairs } from './skew';
export { groupRequestEdges } from './structure';
export { dominantStructure, type EdgeSummary, lowerMedian, summarizeEdges } from './edge-summary';
export { type DetectedOperation, detectFanouts } from './detect';
export { fanoutVerdict, queuedStragglers, queuedTail } from './queueing';
export { packLeafCalls, unpackLeafCalls } from './leaf-pack';
export { backgroundOfCalls, type BackgroundWindow } from './background';
export { selectFanouts } from './select-fanouts';
export * from './critical-path';
export * from './critical-path-bands';
export * from './sampling';
export * from './episodes';
export * from './episodes-merge';
export * from './episode-histogram';
export * from './incidents';
export * from './capacity';
export { cumulativeRates, type CumulativeSeries, type Rates } from './metric-rates';
export * from './episode-cause';
export * from './measured-modes';
export * from './neighbour-busy';
