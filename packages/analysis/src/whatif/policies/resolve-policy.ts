/**
 * A what-if policy checked against its spec and resolved to numbers (or a WhatIfPolicyError).
 */

import {
  POLICY_KINDS,
  POLICY_SPECS,
  WhatIfPolicyError,
  type ParameterSpec,
  type PolicyKind,
  type ResolvedPolicy,
} from './policy';

/** Why `value` breaks `spec`, or null when it does not. */
export function checkParameter(spec: ParameterSpec, value: unknown): string | null {
  if (spec.type === 'string') return checkString(spec, value);
  if (spec.type === 'strings') {
    if (!Array.isArray(value)) return 'must be a list of strings';
    if (spec.maxItems !== undefined && value.length > spec.maxItems)
      return `must have at most ${spec.maxItems} items`;
    for (const v of value as unknown[]) {
      const why = checkString(spec, v);
      if (why !== null) return `items ${why.replace('must', 'must each')}`;
    }
    return null;
  }
  if (typeof value === 'string' && spec.literals?.includes(value) === true) return null;
  if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a finite number';
  if (spec.integer === true && !Number.isInteger(value)) return 'must be an integer';
  if (spec.minimum !== undefined && value < spec.minimum) return `must be >= ${spec.minimum}`;
  if (spec.exclusiveMinimum !== undefined && value <= spec.exclusiveMinimum)
    return `must be > ${spec.exclusiveMinimum}`;
  if (spec.maximum !== undefined && value > spec.maximum) return `must be <= ${spec.maximum}`;
  if (spec.exclusiveMaximum !== undefined && value >= spec.exclusiveMaximum)
    return `must be < ${spec.exclusiveMaximum}`;
  return null;
}

function checkString(spec: ParameterSpec, value: unknown): string | null {
  if (typeof value !== 'string' || value === '') return 'must be a non-empty string';
  if (spec.maxLength !== undefined && value.length > spec.maxLength)
    return `must be at most ${spec.maxLength} characters`;
  return null;
}

function isKind(k: unknown): k is PolicyKind {
  return typeof k === 'string' && (POLICY_KINDS as readonly string[]).includes(k);
}

/**
 * Checks a policy as a user wrote it and applies the defaults that do not depend on the data.
 * Throws WhatIfPolicyError naming the field (`policy.<name>`) on: a missing or unknown kind, an
 * unknown parameter, a value out of range, or parameters that exclude each other. O(parameters).
 */
export function resolvePolicy(input: unknown): ResolvedPolicy {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new WhatIfPolicyError('policy', 'policy must be an object with a kind');
  const raw = input as Record<string, unknown>;
  const kind = raw.kind;
  if (!isKind(kind))
    throw new WhatIfPolicyError(
      'policy.kind',
      `policy.kind must be one of ${POLICY_KINDS.join(', ')}; got ${kind === undefined ? 'nothing' : JSON.stringify(kind)}`,
    );
  const spec = POLICY_SPECS[kind];
  const values: Record<string, number> = {};
  const texts: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (name === 'kind') continue;
    const p = spec.parameters.find((s) => s.name === name);
    if (!p)
      throw new WhatIfPolicyError(
        `policy.${name}`,
        `policy.${name} is not a parameter of ${kind}; expected ${spec.parameters.map((s) => s.name).join(', ')}`,
      );
    if (value === undefined) continue;
    const why = checkParameter(p, value);
    if (why !== null) throw new WhatIfPolicyError(`policy.${name}`, `policy.${name} ${why}`);
    if (typeof value === 'number') values[name] = value;
    else if (value === 'unbounded') values[name] = Number.POSITIVE_INFINITY;
    else texts[name] = value as string | string[];
  }
  for (const p of spec.parameters)
    if (values[p.name] === undefined && p.default !== undefined) values[p.name] = p.default;
  return finish(kind, values, texts);
}

function finish(
  kind: PolicyKind,
  v: Record<string, number>,
  texts: Record<string, string | string[]>,
): ResolvedPolicy {
  const num = (name: string): number => v[name] ?? Number.NaN; // defaults were applied above
  switch (kind) {
    case 'hedge': {
      const given = ['delayMs', 'delayPercentile', 'maxExtraLoad'].filter((n) => n in v);
      if (given.length > 1)
        throw new WhatIfPolicyError(
          `policy.${given[1] ?? ''}`,
          `policy.${given.join(' and policy.')} exclude each other: give one`,
        );
      const delay =
        v.delayMs !== undefined
          ? { delayMs: v.delayMs }
          : v.maxExtraLoad !== undefined
            ? { maxExtraLoad: v.maxExtraLoad }
            : { delayPercentile: v.delayPercentile ?? 95 };
      return {
        kind,
        delay,
        maxAttempts: num('maxAttempts'),
        drawWindowMs: num('drawWindowMs'),
      };
    }
    case 'tied':
      return {
        kind,
        delayMs: num('delayMs'),
        cancelMs: num('cancelMs'),
        drawWindowMs: num('drawWindowMs'),
        ...(v.serviceMs !== undefined ? { serviceMs: v.serviceMs } : {}),
      };
    case 'probation': {
      if (num('intervalSeconds') > num('windowSeconds'))
        throw new WhatIfPolicyError(
          'policy.intervalSeconds',
          `policy.intervalSeconds (${num('intervalSeconds')}) must not exceed policy.windowSeconds (${num('windowSeconds')})`,
        );
      return {
        kind,
        windowSeconds: num('windowSeconds'),
        intervalSeconds: num('intervalSeconds'),
        percentile: num('percentile'),
        threshold: num('threshold'),
        minLatencyMs: num('minLatencyMs'),
        holdSeconds: num('holdSeconds'),
        maxEjectedFraction: num('maxEjectedFraction'),
        minCalls: num('minCalls'),
        minShadowCalls:
          v.minShadowCalls ?? Math.max(1, Math.ceil(num('minCalls') * num('shadowFraction'))),
        shadowFraction: num('shadowFraction'),
        drawWindowMs: num('drawWindowMs'),
      };
    }
    case 'good-enough':
      return {
        kind,
        fraction: v.fraction ?? (v.deadlineMs !== undefined ? 1 : 0.95),
        ...(v.deadlineMs !== undefined ? { deadlineMs: v.deadlineMs } : {}),
      };
    case 'canary':
      return { kind, canaries: num('canaries') };
    case 'sync-background':
      return { kind, mergeGapMs: num('mergeGapMs') };
    case 'pool':
      return { kind, workers: v.workers ?? Number.POSITIVE_INFINITY };
    case 'avoid-hosts': {
      const hosts = texts.hosts;
      const mode = texts.sharingMode;
      // Neither given: the replay avoids the slowest host (see avoid-hosts.ts).
      return {
        kind,
        hosts: Array.isArray(hosts) ? hosts : [],
        ...(typeof mode === 'string' ? { sharingMode: mode } : {}),
        drawWindowMs: num('drawWindowMs'),
      };
    }
  }
}
