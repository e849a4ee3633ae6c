/**
 * A tagged template that turns every interpolated value into a bound ClickHouse query
 * parameter (`{p0:Type}`), so composed SQL is safe by construction: no value ever becomes
 * SQL text. Types are inferred for primitives; use `param(value, 'Type')` to choose one and
 * `ident(name)` for table or column names (bound as `{pN:Identifier}`).
 */

export interface Param {
  readonly kind: 'param';
  readonly value: unknown;
  readonly type: string;
}

export interface Sql {
  readonly kind: 'sql';
  readonly text: string;
  readonly params: Readonly<Record<string, unknown>>;
}

export type SqlValue = Param | Sql | string | number | bigint | boolean | Date | readonly string[];

export function param(value: unknown, type: string): Param {
  return { kind: 'param', value, type };
}

export function ident(name: string): Param {
  return { kind: 'param', value: name, type: 'Identifier' };
}

/** SQL text from our own code that must not be bound (a fragment such as a column list). */
export function raw(text: string): Sql {
  return { kind: 'sql', text, params: {} };
}

function inferType(value: Exclude<SqlValue, Param | Sql>): string {
  if (typeof value === 'string') return 'String';
  if (typeof value === 'boolean') return 'Bool';
  if (typeof value === 'bigint') return 'Int64';
  if (typeof value === 'number') return Number.isInteger(value) ? 'Int64' : 'Float64';
  if (value instanceof Date) return 'DateTime64(3)';
  return 'Array(String)';
}

function isSql(v: unknown): v is Sql {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'sql';
}
function isParam(v: unknown): v is Param {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'param';
}

export function sql(strings: TemplateStringsArray, ...values: SqlValue[]): Sql {
  let text = strings[0] ?? '';
  const params: Record<string, unknown> = {};
  let n = 0;
  const bind = (value: unknown, type: string): string => {
    const name = `p${n++}`;
    params[name] = value instanceof Date ? value.getTime() / 1000 : value;
    return `{${name}:${type}}`;
  };
  values.forEach((v, i) => {
    if (isSql(v)) {
      // Re-number the fragment's parameters into this query's namespace.
      // One pass, so a new name can never be renamed again by a later replacement.
      const renamed = new Map<string, string>();
      for (const [k, val] of Object.entries(v.params)) {
        const name = `p${n++}`;
        renamed.set(k, name);
        params[name] = val;
      }
      text += v.text.replace(/\{(p\d+):/g, (whole, k: string) => {
        const name = renamed.get(k);
        return name ? `{${name}:` : whole;
      });
    } else if (isParam(v)) {
      text += bind(v.value, v.type);
    } else {
      text += bind(v, inferType(v));
    }
    text += strings[i + 1] ?? '';
  });
  return { kind: 'sql', text, params };
}

/** Joins fragments with a separator (e.g. `AND`), keeping every parameter bound. */
export function join(parts: readonly Sql[], separator: string): Sql {
  if (parts.length === 0) return raw('');
  const strings = ['', ...parts.slice(1).map(() => separator), ''];
  return sql(Object.assign(strings, { raw: strings }), ...parts);
}
