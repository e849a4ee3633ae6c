import fc from 'fast-check';

/**
 * Inputs for the REST fuzzer (rest-fuzz.int.test.ts), from OpenAPI schemas: values in range,
 * extremes that broke or could break a parser, a bound or a query, and wrong types.
 */

export interface Schema {
  type?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
}

export interface Operation {
  method: 'GET' | 'POST';
  path: string;
  parameters: { name: string; in: 'query' | 'path'; required?: boolean; schema: Schema }[];
  body?: Schema;
}

/** In-range values for parameters whose meaning the schema does not carry, by name. */
export type Hints = Record<string, fc.Arbitrary<unknown>>;

/**
 * Names of Object.prototype members: a lookup in a plain object finds them where a map finds
 * nothing (a policy kind of `__proto__` answered 500, issue 25). Used wherever a string is a key:
 * values, policy kinds, dimension names, attribute keys, query parameter names, body keys.
 */
export const PROTOTYPE_NAMES = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  '__defineGetter__',
  'prototype',
];

/** Values that broke, or could break, a parser, a bound or a query. As text (query strings). */
const EXTREME_TEXT = [
  ...PROTOTYPE_NAMES,
  ...PROTOTYPE_NAMES.map((k) => `attr:${k}`),
  '',
  ' ',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e308',
  '-1e308',
  '5e-324',
  '1e-5',
  '1e400',
  '-1',
  '0',
  '-0',
  '0.5',
  '9007199254740993',
  '18446744073709551616',
  '-9223372036854775809',
  '0000-01-01',
  '9999-12-31T23:59:59Z',
  '1969-12-31T23:59:59Z',
  '2200-01-01',
  '2262-04-12T00:00:00Z',
  '-62167219200000',
  '253402300799000',
  'abc',
  'true',
  'null',
  '[]',
  '{}',
  'x'.repeat(5000),
  "'; DROP TABLE otel_traces; --",
  '{x:String}',
  '\u0000',
  'a\nb',
  ',,,',
  'attr:',
  'attr:a\nb',
  'host,'.repeat(40),
  'ab'.repeat(16),
];

/** The same in JSON bodies, as numbers. */
const EXTREME_NUMBERS = [
  0,
  -0,
  -1,
  1,
  0.5,
  1e-5,
  5e-324,
  1e308,
  -1e308,
  2 ** 53 + 2, // an unsafe integer
  2 ** 64,
  1e21,
  99.999,
  100,
  101,
  1e9,
];

function bounds(s: Schema, fallbackLo: number, fallbackHi: number): [number, number] {
  const lo = Math.max(s.minimum ?? s.exclusiveMinimum ?? fallbackLo, -1e15);
  const hi = Math.min(s.maximum ?? s.exclusiveMaximum ?? fallbackHi, 1e15);
  return lo <= hi ? [lo, hi] : [hi, lo];
}

/** Values the schema allows (approximately: exclusive bounds included). */
function inRange(s: Schema, name: string, hints: Hints): fc.Arbitrary<unknown> {
  const named = hints[name];
  if (named) return named;
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.anyOf) return fc.oneof(...s.anyOf.map((a) => inRange(a, name, hints)));
  switch (s.type) {
    case 'number': {
      const [lo, hi] = bounds(s, 0, 1e6);
      return fc.double({ min: lo, max: hi, noNaN: true, noDefaultInfinity: true });
    }
    case 'integer': {
      const [lo, hi] = bounds(s, 0, 1e6);
      return fc.integer({
        min: Math.ceil(Math.max(lo, -(2 ** 31))),
        max: Math.floor(Math.min(hi, 2 ** 31)),
      });
    }
    case 'boolean':
      return fc.boolean();
    case 'object': {
      const props = s.properties ?? {};
      return fc.record(
        Object.fromEntries(Object.entries(props).map(([k, v]) => [k, mixed(v, k, hints, 2)])),
        { requiredKeys: (s.required ?? []).filter((k) => k in props) },
      );
    }
    case 'array':
      return fc.array(mixed(s.items ?? {}, name, hints), { maxLength: 4 });
    default:
      return fc.string({ minLength: s.minLength ?? 0, maxLength: 16 });
  }
}

/**
 * In range most of the time, else an extreme or a value of the wrong type; `chaos` weighs the
 * latter against 30 for in range (inside bodies lower, so that more requests reach a replay).
 */
function mixed(s: Schema, name: string, hints: Hints, chaos = 6): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 30, arbitrary: inRange(s, name, hints) },
    { weight: chaos, arbitrary: fc.constantFrom(...EXTREME_NUMBERS) },
    { weight: chaos, arbitrary: fc.constantFrom(...EXTREME_TEXT) },
    {
      weight: chaos,
      arbitrary: fc.oneof(fc.boolean(), fc.constant(null), fc.string({ maxLength: 8 })),
    },
  );
}

/** `v` with its `policy.kind` (when it has a policy object) set to `kind`. */
function withPolicyKind(v: unknown, kind: string): unknown {
  if (typeof v !== 'object' || v === null || !('policy' in v)) return v;
  const policy = v.policy;
  return typeof policy === 'object' && policy !== null ? { ...v, policy: { ...policy, kind } } : v;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

export interface Case {
  url: string;
  body?: string;
}

export function caseOf(op: Operation, base: string, hints: Hints): fc.Arbitrary<Case> {
  const params = op.parameters.map((p) =>
    p.in === 'path'
      ? mixed(p.schema, p.name, hints).map((v) => ({ p, v }))
      : fc.option(
          mixed(p.schema, p.name, hints).map((v) => ({ p, v })),
          { nil: undefined, freq: p.required ? 8 : 3 },
        ),
  );
  const body: fc.Arbitrary<string | undefined> = op.body
    ? fc.oneof(
        { weight: 8, arbitrary: inRange(op.body, '', hints).map((v) => JSON.stringify(v)) },
        { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
        { weight: 1, arbitrary: fc.constantFrom('', '{', 'null', '[]', '{"policy":'.repeat(50)) },
        // A prototype member name as the policy kind (a 400 naming policy.kind).
        {
          weight: 1,
          arbitrary: fc
            .tuple(inRange(op.body, '', hints), fc.constantFrom(...PROTOTYPE_NAMES))
            .map(([v, kind]) => JSON.stringify(withPolicyKind(v, kind))),
        },
        // A prototype name as a body key (JSON.parse makes it an own property).
        {
          weight: 1,
          arbitrary: fc
            .tuple(inRange(op.body, '', hints), fc.constantFrom(...PROTOTYPE_NAMES))
            .map(([v, k]) => JSON.stringify(v).replace(/^\{/, `{"${k}":{"kind":"hedge"},`)),
        },
      )
    : fc.constant(undefined);
  // Now and then a query parameter named after a prototype member.
  const extra = fc.option(fc.constantFrom(...PROTOTYPE_NAMES), { nil: undefined, freq: 6 });
  return fc.tuple(fc.tuple(...params), body, extra).map(([values, b, extraName]) => {
    let path = op.path;
    const query = new URLSearchParams();
    if (extraName !== undefined) query.append(extraName, '1');
    for (const pv of values) {
      if (!pv) continue;
      if (pv.p.in === 'path') path = path.replace(`{${pv.p.name}}`, encodeURIComponent(text(pv.v)));
      else query.append(pv.p.name, text(pv.v));
    }
    const qs = query.toString();
    return { url: `${base}${path}${qs ? `?${qs}` : ''}`, ...(b === undefined ? {} : { body: b }) };
  });
}
