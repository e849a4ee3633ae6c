// Every response is checked at the edge (as jaeger-ui does), so a contract change shows up as one
// clear message naming the field, not as NaN on a chart three components later.

class DecodeError extends Error {
  constructor(path: string, expected: string, got: unknown) {
    super(`unexpected API response: ${path} should be ${expected}, got ${describe(got)}`);
    this.name = 'DecodeError';
  }
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  return typeof v;
}

export type Decoder<T> = (v: unknown, path: string) => T;

export const num: Decoder<number> = (v, path) => {
  if (typeof v === 'number') return v;
  // JSON cannot carry Infinity; servers send null or a string for it.
  if (v === 'Infinity' || v === 'inf') return Infinity;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  throw new DecodeError(path, 'a number', v);
};

/** A number where null (or absence) stands for `fallback`: NaN "undefined", Infinity "unbounded". */
export function numOr(fallback: number): Decoder<number> {
  return (v, path) => (v === null || v === undefined ? fallback : num(v, path));
}

export const str: Decoder<string> = (v, path) => {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  throw new DecodeError(path, 'a string', v);
};

export const bool: Decoder<boolean> = (v, path) => {
  if (typeof v === 'boolean') return v;
  throw new DecodeError(path, 'a boolean', v);
};

/** One of a closed set of strings (the contract's literal unions). */
export function oneOf<T extends string>(values: readonly T[]): Decoder<T> {
  return (v, path) => {
    if (typeof v === 'string' && (values as readonly string[]).includes(v)) return v as T;
    throw new DecodeError(path, `one of ${values.join(', ')}`, v);
  };
}

export function nullable<T>(d: Decoder<T>): Decoder<T | null> {
  return (v, path) => (v === null || v === undefined ? null : d(v, path));
}

export function optional<T>(d: Decoder<T>): Decoder<T | undefined> {
  return (v, path) => (v === null || v === undefined ? undefined : d(v, path));
}

export function withDefault<T>(d: Decoder<T>, fallback: T): Decoder<T> {
  return (v, path) => (v === null || v === undefined ? fallback : d(v, path));
}

export function arr<T>(d: Decoder<T>): Decoder<T[]> {
  return (v, path) => {
    if (!Array.isArray(v)) throw new DecodeError(path, 'an array', v);
    return v.map((x, i) => d(x, `${path}[${i}]`));
  };
}

/** String-keyed record of anything (span attributes); values are kept as the server sent them. */
export const record: Decoder<Record<string, unknown>> = (v, path) => {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new DecodeError(path, 'an object', v);
  return v as Record<string, unknown>;
};

type Fields<T> = { [K in keyof T]-?: Decoder<T[K]> };

/**
 * An object decoder. Unknown fields are ignored (the API adds fields, never renames them);
 * optional fields decoded as undefined are left out, which exactOptionalPropertyTypes wants.
 */
export function obj<T extends object>(fields: Fields<T>): Decoder<T> {
  return (v, path) => {
    const o = record(v, path);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(fields) as (keyof T & string)[]) {
      const d = fields[key] as Decoder<unknown>;
      const value = d(o[key], path === '' ? key : `${path}.${key}`);
      if (value !== undefined) out[key] = value;
    }
    return out as T;
  };
}
