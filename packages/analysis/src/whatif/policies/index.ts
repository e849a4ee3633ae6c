/**
 * The tail-tolerance policies: their specs and resolution (`policy-specs.ts`, `resolve-policy.ts`),
 * the replay index they draw from, each policy's replay on a set of leaf calls, and the work a
 * policy needs before its draws (`policy-prep.ts`).
 */
export { type HedgeReplay, replayHedge } from './hedge';
export {
  type PolicyPrep,
  policyQuantile,
  policyUsesIndex,
  preparePolicy,
  withHedgeScan,
} from './policy-prep';
export {
  type AvoidHostsPolicy,
  type CanaryPolicy,
  type GoodEnoughPolicy,
  type HedgePolicy,
  type ParameterSpec,
  POLICY_KINDS,
  POLICY_SPECS,
  type PolicyKind,
  type PolicySpec,
  type PoolPolicy,
  type ProbationPolicy,
  type ResolvedPolicy,
  type SyncBackgroundPolicy,
  type TiedPolicy,
  type WhatIfPolicy,
  WhatIfPolicyError,
} from './policy';
export { type ProbationReplay, replayProbation } from './probation';
export {
  buildReplayIndex,
  buildStaticIndex,
  type ReplayIndex,
  type ReplayIndexOptions,
  type StaticIndex,
} from './replay-index';
export { deterministicPolicy, type PolicyOutcome, replayPolicy } from './replay-policy';
export { checkParameter, resolvePolicy } from './resolve-policy';
