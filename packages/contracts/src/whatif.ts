import { Type, type Static, type TSchema } from 'typebox';
import { SamplingInfo } from './sampling';
import {
  POLICY_KINDS,
  POLICY_SPECS,
  type ParameterSpec,
  type PolicyKind,
  type WhatIfPolicy,
} from '@tailscope/analysis';
import { ErrorBody, MAX_NAME_LENGTH, MAX_TIME_LENGTH, TIME_MAX_MS, TIME_MIN_MS } from './bounds';
import {
  CapacityAnswer,
  CapacityField,
  LoadPolicy,
  MachinesPolicy,
  SloField,
  type CapacityPolicy,
} from './capacity';

/**
 * POST /api/v1/whatif. The policy schemas are built from the simulator's parameter table (one
 * source of truth for names, bounds and defaults).
 */

/**
 * Probation evaluation intervals one replay may step through at most: (range + warm-up) /
 * intervalSeconds. A replay costs O(intervals x hosts); 1,000,000 is 12 days at 1 s, or about
 * 8 s of one worker thread's CPU at 1 ms over 8 hosts: it runs off the event loop, under the
 * query time budget (TAILSCOPE_QUERY_TIMEOUT_SECONDS).
 */
export const MAX_PROBATION_INTERVALS = 1_000_000;

function parameterSchema(p: ParameterSpec): TSchema {
  if (p.type === 'string' || p.type === 'strings') {
    const item = Type.String({
      minLength: 1,
      ...(p.maxLength !== undefined ? { maxLength: p.maxLength } : {}),
    });
    return p.type === 'string'
      ? Type.String({ ...item, description: p.description })
      : Type.Array(item, {
          description: p.description,
          ...(p.maxItems !== undefined ? { maxItems: p.maxItems } : {}),
        });
  }
  const opts = {
    description: p.description,
    ...(p.minimum !== undefined ? { minimum: p.minimum } : {}),
    ...(p.exclusiveMinimum !== undefined ? { exclusiveMinimum: p.exclusiveMinimum } : {}),
    ...(p.maximum !== undefined ? { maximum: p.maximum } : {}),
    ...(p.exclusiveMaximum !== undefined ? { exclusiveMaximum: p.exclusiveMaximum } : {}),
    ...(p.default !== undefined ? { default: p.default } : {}),
  };
  const num = p.integer === true ? Type.Integer(opts) : Type.Number(opts);
  // A numeric parameter that also takes words (pool `workers: 'unbounded'`).
  if (p.literals === undefined || p.literals.length === 0) return num;
  return Type.Union([num, ...p.literals.map((l) => Type.Literal(l))], {
    description: p.description,
  });
}

function policySchema(kind: PolicyKind): TSchema {
  const spec = POLICY_SPECS[kind];
  const props: Record<string, TSchema> = { kind: Type.Literal(kind) };
  for (const p of spec.parameters) props[p.name] = Type.Optional(parameterSchema(p));
  return Type.Object(props, {
    additionalProperties: false,
    description: spec.description,
    title: kind,
  });
}

/** One schema per policy kind (no parameter outside the kind's table). */
export const POLICY_SCHEMAS = Object.fromEntries(
  POLICY_KINDS.map((k) => [k, policySchema(k)]),
) as Record<PolicyKind, TSchema>;

const Instant = (description: string) =>
  Type.Optional(
    Type.Union(
      [
        Type.Number({ minimum: TIME_MIN_MS, maximum: TIME_MAX_MS }),
        Type.String({ minLength: 1, maxLength: MAX_TIME_LENGTH }),
      ],
      { description },
    ),
  );

/** The body's fields other than the policy. */
export const WHATIF_BODY_FIELDS = {
  leafService: Type.String({
    minLength: 1,
    maxLength: MAX_NAME_LENGTH,
    description: 'Service that answers the leaf calls.',
  }),
  leafOperation: Type.String({
    minLength: 1,
    maxLength: MAX_NAME_LENGTH,
    description: 'Leaf span name.',
  }),
  from: Instant(
    'Start: epoch milliseconds or ISO-8601, between 1970-01-01 and 2200-01-01. Default: one hour before `to`.',
  ),
  to: Instant(
    'End (exclusive): epoch milliseconds or ISO-8601, between 1970-01-01 and 2200-01-01. Default: now.',
  ),
  parentService: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_NAME_LENGTH,
      description: "Caller service: replay only this caller's calls to the leaf operation.",
    }),
  ),
  parentOperation: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_NAME_LENGTH,
      description: 'Caller span name (with parentService): one caller.',
    }),
  ),
  seed: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      default: 1,
      description: 'Same seed, same answer.',
    }),
  ),
  quality: Type.Optional(
    Type.Union([Type.Literal('preview'), Type.Literal('full')], {
      default: 'full',
      description:
        "'preview' (a dashboard control moving): the whole-request replay only (the edge figures from it), one replay and 200 bootstrap resamples, trees and plan cached for the range; 'full': every figure, pooled replays and the full bootstrap.",
    }),
  ),
  capacity: CapacityField,
  sloMs: SloField,
};

/** The documented body: the policy is one of the per-kind schemas. */
export const WhatIfBody = Type.Object(
  {
    ...WHATIF_BODY_FIELDS,
    // Typed as the simulator's policy union (the per-kind schemas are built from its table) or
    // a load / machines change alone (issue 29).
    policy: Type.Unsafe<WhatIfPolicy | CapacityPolicy>(
      Type.Union([...POLICY_KINDS.map((k) => POLICY_SCHEMAS[k]), LoadPolicy, MachinesPolicy]),
    ),
  },
  { additionalProperties: false },
);
export type WhatIfBody = Static<typeof WhatIfBody>;
/** A body whose policy is a replay policy (not a load or machines change alone). */
export type ReplayWhatIfBody = Omit<WhatIfBody, 'policy'> & { policy: WhatIfPolicy };

export const Estimate = Type.Object({
  value: Type.Number(),
  low: Type.Number({ description: '95% bootstrap interval, low end' }),
  high: Type.Number({ description: '95% bootstrap interval, high end' }),
});
export type Estimate = Static<typeof Estimate>;

export const WhatIfResponse = Type.Object({
  requests: Type.Integer({ description: 'Fan-outs replayed.' }),
  baseline: Type.Object(
    { p50: Type.Number(), p90: Type.Number(), p99: Type.Number(), p999: Type.Number() },
    { description: 'Recorded all-leaves finishing time percentiles, ms.' },
  ),
  whatIf: Type.Object(
    { p50: Estimate, p90: Estimate, p99: Estimate, p999: Estimate },
    {
      description:
        'Replayed all-leaves finishing time percentiles, ms, with 95% bootstrap intervals over requests.',
    },
  ),
  extraLoad: Type.Number({
    description: 'Extra calls (tied: duplicated executions) per recorded call.',
  }),
  probation: Type.Optional(
    Type.Object({
      hosts: Type.Array(Type.Object({ host: Type.String(), seconds: Type.Number() })),
      capacityRemoved: Type.Number({ description: 'Share of host-seconds on probation.' }),
    }),
  ),
  completeness: Type.Optional(
    Type.Object({
      callsAnswered: Type.Number(),
      requestsComplete: Type.Number(),
      lost: Type.Number({ description: 'Share of leaf answers given up.' }),
    }),
  ),
  avoidHosts: Type.Optional(
    Type.Object({
      hosts: Type.Array(Type.String(), { description: 'Hosts avoided.' }),
      capacityRemoved: Type.Number({ description: "Share of the callee's hosts removed." }),
      loadAdded: Type.Number({
        description: 'Extra calls per call on each remaining host (the moved calls they serve).',
      }),
    }),
  ),
  applicable: Type.Optional(
    Type.Boolean({
      description:
        'False when the policy cannot act here (e.g. it needs another host and the callee has one instance in the range); `reason` says why.',
    }),
  ),
  reason: Type.Optional(Type.String()),
  request: Type.Optional(
    Type.Object(
      {
        baseline: Type.Object({
          p50: Type.Number(),
          p90: Type.Number(),
          p99: Type.Number(),
          p999: Type.Number(),
        }),
        whatIf: Type.Object({ p50: Estimate, p90: Estimate, p99: Estimate, p999: Estimate }),
        shareOfEdgeChange: Type.Optional(
          Type.Number({
            description:
              "Mean change of the request time over mean change of the edge's time per request (absent when the edge did not change).",
          }),
        ),
        model: Type.Optional(
          Type.Union([Type.Literal('open'), Type.Literal('closed-loop')], {
            description:
              "How requests were re-timed. 'open': each alone. 'closed-loop': the recording shows a few clients sending requests back to back and an operation serialized across requests (a lock, one connection); the replay re-runs those clients and that operation's FIFO queue, so faster requests queue longer on it.",
          }),
        ),
        closedLoop: Type.Optional(
          Type.Object(
            {
              clients: Type.Integer({ description: 'Most root requests in flight at once.' }),
              resourceService: Type.String(),
              resourceOperation: Type.String({
                description: 'The operation serialized across requests.',
              }),
              holdP50Ms: Type.Number({
                description: 'Median hold of the resource (FIFO reconstruction), ms.',
              }),
              thinkP50Ms: Type.Number({
                description: "Median gap between a client's answer and its next request, ms.",
              }),
              recordedWaitP50Ms: Type.Number(),
              replayedWaitP50Ms: Type.Number({
                description: 'Median wait on the resource in the replay, ms.',
              }),
            },
            { description: "What the closed-loop model detected (when model is 'closed-loop')." },
          ),
        ),
        modelReason: Type.Optional(
          Type.String({ description: "Why the closed-loop model was not used (model 'open')." }),
        ),
      },
      {
        description:
          'Root request duration percentiles, ms, recorded and replayed through the call tree (present when whole requests were replayed).',
      },
    ),
  ),
  notes: Type.Array(Type.String()),
  sampling: Type.Optional(SamplingInfo),
  quality: Type.Optional(
    Type.Union([Type.Literal('preview'), Type.Literal('full')], {
      description: "The quality asked: 'preview' answers are for a control moving.",
    }),
  ),
  capacity: Type.Optional(CapacityAnswer),
  sampledFanouts: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        'Fan-outs wider than the per-fan-out bound (5,000 calls) whose calls were sampled down to it, deterministically, so one huge fan-out cannot make the replay unusable; absent when none (the notes say the same)',
    }),
  ),
});
export type WhatIfResponse = Static<typeof WhatIfResponse>;

export const WhatIfRoute = {
  summary: 'Replay recorded fan-outs under a tail-tolerance policy (docs/whatif.md)',
  body: WhatIfBody,
  response: { 200: WhatIfResponse, 400: ErrorBody, 404: ErrorBody },
};
