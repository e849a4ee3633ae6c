// @tailscope/analysis/testing: the what-if's building blocks and synthesizers that only the
// benchmarks, the validations and the tests use (one fan-out's replay index and hedge, the
// bootstrap and the quantile noise floor, request plans and masks, synthetic leaf calls, requests
// and traces). The apps' sources never import it (.dependency-cruiser.cjs); the package entry
// (index.ts) keeps the surface the apps run on: prepare, simulate and the answer's types.
export {
  bootstrapPercentiles,
  buildReplayIndex,
  buildRequestPlan,
  firstAnswerAllLeavesMs,
  latencyQuantile,
  leafCallsFromRows,
  quantileNoiseFloor,
  randomTraceSpans,
  replayHedge,
  type RequestPlan,
  spanColumnsFromSpans,
  synthesizeLeafCalls,
  synthesizeRequests,
  targetMask,
  type WhatIfEstimate,
  type WhatIfReplay,
} from './whatif';
export { sortAscending } from './quantile';
export { randomFromSeed } from './hash';
export { widthStats } from './fanout-stats';
export { hostWindowStats } from './hosts';
export { dedupeSpans } from './calls';
export { skewPairs } from './skew';
export { groupRequestEdges } from './structure';
export { lowerMedian, summarizeEdges } from './edge-summary';
export { type DetectedOperation } from './detect';
export { queuedStragglers, queuedTail } from './queueing';
export { selectFanouts } from './select-fanouts';
export { spanWeight } from './sampling';
export { capacityWhatIf, logNormal, queueTrees } from './capacity';
