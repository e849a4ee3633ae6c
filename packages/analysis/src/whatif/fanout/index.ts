/**
 * One fan-out's what-if (`simulateWhatIf`): the recorded leaf calls replayed under a policy,
 * the all-leaves times before and after, and synthetic leaf calls for tests and the benchmark.
 */
export { firstAnswerAllLeavesMs, type FirstAnswerTimes } from './first-answer';
export {
  defaultReplays,
  notApplicable,
  type SimulateOptions,
  simulateWhatIf,
  type WhatIfPercentiles,
  type WhatIfReplay,
  type WhatIfResult,
} from './simulate';
export {
  type LeafCallRow,
  leafCallsFromRows,
  synthesizeLeafCalls,
  type SyntheticLeafCallsOptions,
} from './synthetic';
