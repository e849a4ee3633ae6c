/** Field checks for untrusted spec JSON; errors name the field's path. */
import { TracegenError } from './spec';

export type Obj = Record<string, unknown>;

export function fail(path: string, why: string): never {
  throw new TracegenError(`scenario spec: ${path} ${why}`);
}

export function obj(v: unknown, path: string): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(path, 'must be an object');
  return v as Obj;
}

export function arr(v: unknown, path: string): unknown[] {
  if (!Array.isArray(v)) fail(path, 'must be an array');
  return v;
}

export function str(o: Obj, key: string, path: string): string {
  const v = o[key];
  if (typeof v !== 'string' || v === '') fail(`${path}.${key}`, 'must be a non-empty string');
  return v;
}

interface Range {
  min?: number;
  max?: number;
  above?: number;
  int?: boolean;
}

export function num(o: Obj, key: string, path: string, r: Range = {}): number {
  const v = o[key];
  const p = `${path}.${key}`;
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(p, 'must be a finite number');
  if (r.int && !Number.isInteger(v)) fail(p, 'must be an integer');
  if (r.min !== undefined && v < r.min) fail(p, `must be >= ${r.min}`);
  if (r.above !== undefined && v <= r.above) fail(p, `must be > ${r.above}`);
  if (r.max !== undefined && v > r.max) fail(p, `must be <= ${r.max}`);
  return v;
}

export function oneOf<T extends string>(
  o: Obj,
  key: string,
  path: string,
  values: readonly T[],
): T {
  const v = o[key];
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v))
    fail(`${path}.${key}`, `must be one of ${values.join(', ')}`);
  return v as T;
}
