import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import {
  POLICY_KINDS,
  POLICY_SPECS,
  resolvePolicy,
  WhatIfPolicyError,
  type WhatIfPolicy,
} from '@tailscope/analysis';
import {
  CAPACITY_KINDS,
  LoadPolicy,
  MachinesPolicy,
  MAX_PROBATION_INTERVALS,
  POLICY_SCHEMAS,
  WHATIF_BODY_FIELDS as bodyFields,
} from '@tailscope/contracts';
import { MAX_CAPACITY_CHANGES } from '@tailscope/analysis';
import { badRequest, type HttpError } from '../foundation';

/**
 * The body validator of POST /api/v1/whatif (schemas in @tailscope/contracts): it checks the
 * same schemas the OpenAPI document shows, but names the failing field (policy.delayMs ...),
 * which a union's "must match a schema in anyOf" does not.
 */

// A Map, not an object: a kind named `__proto__`, `constructor` or `toString` must find
// nothing rather than an inherited member (issue 25: a 500 "validator.Check is not a function").
const policyValidators: ReadonlyMap<string, ReturnType<typeof Compile>> = new Map([
  ...POLICY_KINDS.map((k) => [k, Compile(POLICY_SCHEMAS[k])] as const),
  // Load and machines changes (issue 29): a policy alone, or items of `capacity`.
  ['load', Compile(LoadPolicy)] as const,
  ['machines', Compile(MachinesPolicy)] as const,
]);
const ALL_KINDS = [...POLICY_KINDS, ...CAPACITY_KINDS];
const isCapacityKind = (k: string): boolean => (CAPACITY_KINDS as readonly string[]).includes(k);

/** Parameters per kind, for the "not a parameter of" message. */
const PARAMETERS: Record<string, readonly string[]> = {
  ...Object.fromEntries(
    POLICY_KINDS.map((k) => [k, POLICY_SPECS[k].parameters.map((p) => p.name)]),
  ),
  load: ['factor', 'rootService', 'rootOperation'],
  machines: ['service', 'count', 'delta'],
};

/** The body without the policy's parameters, validated first. */
const shellValidator = Compile(
  Type.Object(
    {
      ...bodyFields,
      policy: Type.Object({ kind: Type.String({ maxLength: 64 }) }, { additionalProperties: true }),
      capacity: Type.Optional(
        Type.Array(
          Type.Object({ kind: Type.String({ maxLength: 64 }) }, { additionalProperties: true }),
          { maxItems: MAX_CAPACITY_CHANGES },
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

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
    const params = Object.hasOwn(PARAMETERS, what) ? PARAMETERS[what] : undefined;
    return params
      ? `${name} is not a parameter of ${what}; expected ${params.join(', ')}`
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
  const { policy, capacity } = body as { policy: { kind: string }; capacity?: { kind: string }[] };
  const error = checkPolicy(policy, 'policy', ALL_KINDS);
  if (error) return error;
  for (const [i, c] of (capacity ?? []).entries()) {
    const e = checkPolicy(c, `capacity.${i}`, CAPACITY_KINDS);
    if (e) return e;
  }
  return null;
}

/** One policy (or capacity change) at `at`: its kind among `kinds`, its schema, its rules. */
function checkPolicy(
  policy: { kind: string },
  at: string,
  kinds: readonly string[],
): HttpError | null {
  const kind = policy.kind;
  const validator = kinds.includes(kind) ? policyValidators.get(kind) : undefined;
  if (!validator)
    return badRequest(`${at}.kind must be one of ${kinds.join(', ')}; got ${JSON.stringify(kind)}`);
  if (!validator.Check(policy)) {
    const errors = validator.Errors(policy) as TypeBoxError[];
    return badRequest(
      describeError(
        errors.map((e) => ({ ...e, instancePath: `/${at.replace('.', '/')}${e.instancePath}` })),
        kind,
      ),
    );
  }
  if (isCapacityKind(kind)) return null; // checked against the data (the fit) later
  try {
    resolvePolicy(policy); // semantic rules: exclusive parameters, ...
  } catch (e) {
    if (e instanceof WhatIfPolicyError) return badRequest(e.message);
    throw e;
  }
  return null;
}

/**
 * Probation steps through (range + warm-up) / intervalSeconds evaluation intervals: more than
 * MAX_PROBATION_INTERVALS is refused before anything is loaded (400 naming the field), so a
 * replay's cost is bounded whatever the range. Other policies have no intervals.
 */
export function checkReplaySize(
  policy: WhatIfPolicy,
  rangeMs: number,
  warmupMs: number,
): HttpError | null {
  if (policy.kind !== 'probation') return null;
  const p = resolvePolicy(policy);
  if (p.kind !== 'probation') return null;
  const intervals = (rangeMs + warmupMs) / (p.intervalSeconds * 1000);
  if (intervals <= MAX_PROBATION_INTERVALS) return null;
  return badRequest(
    `policy.intervalSeconds ${p.intervalSeconds} gives ${Math.ceil(intervals)} evaluation intervals over the range and warm-up; at most ${MAX_PROBATION_INTERVALS}: use a longer interval or a shorter range`,
  );
}
