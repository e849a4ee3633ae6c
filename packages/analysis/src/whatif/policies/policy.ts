/**
 * What-if policies as a user writes them and as the replay reads them (defaults applied), and
 * the error for a policy that breaks a rule. The parameter table (bounds, defaults) is in
 * policy-specs.ts, re-exported here so importers keep one entry for policies.
 */

export {
  POLICY_KINDS,
  POLICY_SPECS,
  type ParameterSpec,
  type PolicyKind,
  type PolicySpec,
} from './policy-specs';

export interface HedgePolicy {
  kind: 'hedge';
  delayMs?: number;
  delayPercentile?: number;
  maxExtraLoad?: number;
  maxAttempts?: number;
  drawWindowMs?: number;
}
export interface TiedPolicy {
  kind: 'tied';
  delayMs?: number;
  cancelMs?: number;
  serviceMs?: number;
  drawWindowMs?: number;
}
export interface ProbationPolicy {
  kind: 'probation';
  windowSeconds?: number;
  intervalSeconds?: number;
  percentile?: number;
  threshold?: number;
  minLatencyMs?: number;
  holdSeconds?: number;
  maxEjectedFraction?: number;
  minCalls?: number;
  minShadowCalls?: number;
  shadowFraction?: number;
  drawWindowMs?: number;
}
export interface GoodEnoughPolicy {
  kind: 'good-enough';
  fraction?: number;
  deadlineMs?: number;
}
export interface CanaryPolicy {
  kind: 'canary';
  canaries?: number;
}
export interface SyncBackgroundPolicy {
  kind: 'sync-background';
  mergeGapMs?: number;
}
export interface PoolPolicy {
  kind: 'pool';
  workers?: number | 'unbounded';
}
export interface AvoidHostsPolicy {
  kind: 'avoid-hosts';
  hosts?: string[];
  sharingMode?: string;
  drawWindowMs?: number;
}
/** A policy as a user writes it: `kind` plus optional parameters. */
export type WhatIfPolicy =
  | HedgePolicy
  | TiedPolicy
  | ProbationPolicy
  | GoodEnoughPolicy
  | CanaryPolicy
  | SyncBackgroundPolicy
  | PoolPolicy
  | AvoidHostsPolicy;

/** A policy with every default applied that does not depend on the data. */
export type ResolvedPolicy =
  | (Required<Omit<HedgePolicy, 'delayMs' | 'delayPercentile' | 'maxExtraLoad'>> & {
      delay: { delayMs: number } | { delayPercentile: number } | { maxExtraLoad: number };
    })
  | (Required<Omit<TiedPolicy, 'serviceMs'>> & { serviceMs?: number })
  | Required<ProbationPolicy>
  | { kind: 'good-enough'; fraction: number; deadlineMs?: number }
  | Required<CanaryPolicy>
  | Required<SyncBackgroundPolicy>
  | { kind: 'pool'; workers: number }
  | { kind: 'avoid-hosts'; hosts: string[]; sharingMode?: string; drawWindowMs: number };

/** A policy that breaks a rule; `field` names it, e.g. `policy.delayMs`. */
export class WhatIfPolicyError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'WhatIfPolicyError';
  }
}
