import { Type, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import {
  POLICY_KINDS,
  POLICY_SPECS,
  resolvePolicy,
  WhatIfPolicyError,
  type ParameterSpec,
  type PolicyKind,
} from '@tailscope/analysis';
import { badRequest, type HttpError } from '../server/errors';

/**
 * Schemas of POST /api/v1/whatif, built from the simulator's parameter table (one source of
 * truth for names, bounds and defaults), and the body validator that names the bad field.
 */

function parameterSchema(p: ParameterSpec): TSchema {
  const opts = {
    description: p.description,
    ...(p.minimum !== undefined ? { minimum: p.minimum } : {}),
    ...(p.exclusiveMinimum !== undefined ? { exclusiveMinimum: p.exclusiveMinimum } : {}),
    ...(p.maximum !== undefined ? { maximum: p.maximum } : {}),
    ...(p.exclusiveMaximum !== undefined ? { exclusiveMaximum: p.exclusiveMaximum } : {}),
    ...(p.default !== undefined ? { default: p.default } : {}),
  };
  return p.integer === true ? Type.Integer(opts) : Type.Number(opts);
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

const policySchemas = Object.fromEntries(POLICY_KINDS.map((k) => [k, policySchema(k)])) as Record<
  PolicyKind,
  TSchema
>;
const policyValidators = Object.fromEntries(
  POLICY_KINDS.map((k) => [k, Compile(policySchemas[k])]),
) as Record<PolicyKind, ReturnType<typeof Compile>>;

const Instant = (description: string) =>
  Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.String()], { description }));

const bodyFields = {
  leafService: Type.String({ minLength: 1, description: 'Service that answers the leaf calls.' }),
  leafOperation: Type.String({ minLength: 1, description: 'Leaf span name.' }),
  from: Instant('Start: epoch milliseconds or ISO-8601. Default: one hour before `to`.'),
  to: Instant('End (exclusive): epoch milliseconds or ISO-8601. Default: now.'),
  seed: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      default: 1,
      description: 'Same seed, same answer.',
    }),
  ),
};

/** The documented body: the policy is one of the per-kind schemas. */
export const WhatIfBody = Type.Object(
  { ...bodyFields, policy: Type.Union(POLICY_KINDS.map((k) => policySchemas[k])) },
  { additionalProperties: false },
);

/** The body without the policy's parameters, validated first. */
const shellValidator = Compile(
  Type.Object(
    { ...bodyFields, policy: Type.Object({ kind: Type.String() }, { additionalProperties: true }) },
    { additionalProperties: false },
  ),
);

const Estimate = Type.Object({
  value: Type.Number(),
  low: Type.Number({ description: '95% bootstrap interval, low end' }),
  high: Type.Number({ description: '95% bootstrap interval, high end' }),
});

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
  notes: Type.Array(Type.String()),
});

interface TypeBoxError {
  keyword: string;
  instancePath: string;
  message: string;
  params: { requiredProperties?: string[]; additionalProperties?: string[] };
}

/** "/policy/delayMs" -> "policy.delayMs"; the first error, phrased with its field. */
function describeError(errors: readonly TypeBoxError[], what: string): string {
  const e = errors.find((x) => x.keyword !== 'boolean') ?? errors[0];
  if (!e) return 'invalid body';
  const at = e.instancePath.split('/').filter(Boolean).join('.');
  const field = (name: string): string => (at === '' ? name : `${at}.${name}`);
  if (e.keyword === 'required')
    return `${field(e.params.requiredProperties?.[0] ?? '?')} is required`;
  if (e.keyword === 'additionalProperties') {
    const name = field(e.params.additionalProperties?.[0] ?? '?');
    const spec = (
      POLICY_SPECS as Partial<Record<string, { parameters: readonly ParameterSpec[] }>>
    )[what];
    return spec
      ? `${name} is not a parameter of ${what}; expected ${spec.parameters.map((p) => p.name).join(', ')}`
      : `${name} is not a field of ${what}`;
  }
  return `${at === '' ? 'body' : at} ${e.message}`;
}

/** Validates a request body; returns the HttpError (400, naming the field) or null. */
export function checkWhatIfBody(body: unknown): HttpError | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return badRequest('body must be a JSON object');
  if (!shellValidator.Check(body))
    return badRequest(describeError(shellValidator.Errors(body) as TypeBoxError[], 'the request'));
  const policy = (body as { policy: { kind: string } }).policy;
  const kind = policy.kind as PolicyKind;
  const validator = (policyValidators as Partial<Record<string, ReturnType<typeof Compile>>>)[kind];
  if (!validator)
    return badRequest(
      `policy.kind must be one of ${POLICY_KINDS.join(', ')}; got ${JSON.stringify(kind)}`,
    );
  if (!validator.Check(policy)) {
    const errors = validator.Errors(policy) as TypeBoxError[];
    return badRequest(
      describeError(
        errors.map((e) => ({ ...e, instancePath: `/policy${e.instancePath}` })),
        kind,
      ),
    );
  }
  try {
    resolvePolicy(policy); // semantic rules: exclusive parameters, interval <= window, ...
  } catch (e) {
    if (e instanceof WhatIfPolicyError) return badRequest(e.message);
    throw e;
  }
  return null;
}
