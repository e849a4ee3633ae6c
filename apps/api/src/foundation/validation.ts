import { badRequest } from './errors';

/**
 * One sentence naming the bad field of a schema validation error (Ajv, with `verbose` on so the
 * error carries the schema and the value): `thresholdMs must be a number in [0, 31622400000],
 * got 1e+308`, `leafService is required`, `traceId must be 32 hex digits, got "xyz"`.
 */

interface AjvError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
  parentSchema?: Record<string, unknown>;
  data?: unknown;
}

function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v);
  if (typeof v === 'number') return String(v);
  return v === undefined ? 'nothing' : JSON.stringify(v);
}

const NUMBER_BOUNDS = new Set([
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'type',
  'multipleOf',
]);

function numberRange(s: Record<string, unknown>): string {
  const lo = s.minimum ?? s.exclusiveMinimum;
  const hi = s.maximum ?? s.exclusiveMaximum;
  const open = s.minimum === undefined && s.exclusiveMinimum !== undefined ? '(' : '[';
  const close = s.maximum === undefined && s.exclusiveMaximum !== undefined ? ')' : ']';
  return `${open}${String(lo)}, ${String(hi)}${close}`;
}

/** The field path: "/policy/delayMs" -> "policy.delayMs"; `context` (querystring...) when empty. */
function fieldOf(e: AjvError, context: string): string {
  const path = e.instancePath.split('/').filter(Boolean).join('.');
  const child =
    typeof e.params.missingProperty === 'string'
      ? e.params.missingProperty
      : typeof e.params.additionalProperty === 'string'
        ? e.params.additionalProperty
        : undefined;
  if (child !== undefined) return path === '' ? child : `${path}.${child}`;
  return path === '' ? context : path;
}

export function validationMessage(errors: readonly AjvError[], context: string): string {
  // A union of constants (precision=f64|f32) failed: name the choices, not the first constant.
  const union = errors.find((x) => x.keyword === 'anyOf');
  const choices = (union?.parentSchema?.anyOf as Record<string, unknown>[] | undefined)?.map(
    (c) => c.const,
  );
  if (union && choices?.every((c) => typeof c === 'string'))
    return `${fieldOf(union, context)} must be one of ${choices.join(', ')}, got ${show(union.data)}`;
  const e = errors[0];
  if (!e) return `invalid ${context}`;
  const field = fieldOf(e, context);
  const s = e.parentSchema ?? {};
  if (e.keyword === 'required') return `${field} is required`;
  if (e.keyword === 'additionalProperties') return `${field} is not a field of the ${context}`;
  const numeric = s.type === 'number' || s.type === 'integer';
  if (numeric && NUMBER_BOUNDS.has(e.keyword)) {
    const what = s.type === 'integer' ? 'an integer' : 'a number';
    const bounded = s.minimum !== undefined || s.exclusiveMinimum !== undefined;
    return `${field} must be ${what}${bounded ? ` in ${numberRange(s)}` : ''}, got ${show(e.data)}`;
  }
  // A patterned string (an id) is described as a whole, whichever of its checks failed.
  if (
    typeof s.pattern === 'string' &&
    typeof s.description === 'string' &&
    (e.keyword === 'pattern' || e.keyword === 'minLength' || e.keyword === 'maxLength')
  )
    return `${field} must be ${s.description}, got ${show(e.data)}`;
  return `${field} ${e.message ?? 'is invalid'}${e.data === undefined ? '' : `, got ${show(e.data)}`}`;
}

type Schema = Record<string, unknown>;

/**
 * Ajv 8 coerces the query text "Infinity" to the number Infinity and then skips the number's
 * bounds (they are checked only for finite numbers), so `maxFanouts=Infinity` would reach the
 * handler. This check runs before validation on the routes with numeric query parameters and
 * answers 400 naming the parameter for any text that is a number but not a finite one.
 */
export function nonFiniteQueryCheck(
  querystring: unknown,
): ((req: { query: unknown }) => Promise<void>) | undefined {
  const props = (querystring as { properties?: Record<string, Schema> } | undefined)?.properties;
  if (!props) return undefined;
  const numeric = Object.entries(props).filter(
    ([, s]) => s.type === 'number' || s.type === 'integer',
  );
  if (numeric.length === 0) return undefined;
  return (req) => {
    const q = req.query as Record<string, unknown>;
    for (const [name, s] of numeric) {
      const raw = q[name];
      if (typeof raw !== 'string') continue;
      const v = Number(raw);
      if (raw.trim() !== '' && !Number.isNaN(v) && !Number.isFinite(v)) {
        const what = s.type === 'integer' ? 'an integer' : 'a number';
        return Promise.reject(
          badRequest(`${name} must be ${what} in ${numberRange(s)}, got ${show(raw)}`),
        );
      }
    }
    return Promise.resolve();
  };
}
