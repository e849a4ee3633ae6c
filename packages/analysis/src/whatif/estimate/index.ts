/**
 * The estimates every what-if answer ends with: bootstrap percentiles and their intervals,
 * the sorts and partial orders they read (radix sort, order statistics over ranges), the
 * latency quantile a policy's threshold comes from, and the replay noise floor.
 */
export {
  bootstrapPercentiles,
  bootstrapReads,
  bootstrapWeightedQuantiles,
  DEFAULT_BOOTSTRAP_SAMPLES,
  type Estimate,
  PERCENTILE_QS,
  selectedQuantiles,
} from './bootstrap';
export { HostWindowStats } from './host-window-stats';
export { latencyQuantile, latencyQuantileKept } from './latency-quantile';
export { type NoiseFloorOptions, quantileNoiseFloor } from './noise-floor';
export { sortedCopy, sortedOrder } from './radix-sort';
export { mergeRanges, sortedAtRanges } from './select-ranges';
export { type WeightedOutputs, weightedWhatIf } from './weighted-outputs';
