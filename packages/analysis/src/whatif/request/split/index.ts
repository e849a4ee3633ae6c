/**
 * The whole-request answer split into parts of the requests, planned and replayed on several
 * threads: the steps a driver runs, bit for bit the one-thread answer.
 */
export { mergedCallRoom, planCalls, writePartCalls } from './part-calls';
export {
  type BootstrapReads,
  finishSplit,
  mergedSplitReplay,
  poolSplitReplay,
  simulateRequestWhatIfSplit,
  type SplitAnswer,
  splitBaseInputs,
  splitBootstrapReads,
  splitPrepScan,
  splitPrepWork,
  splitReplay,
  type SplitReplay,
  splitSortInputs,
  startSplit,
} from './split';
