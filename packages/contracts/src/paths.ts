/**
 * Every REST path and its method, by name: the one spelling of each URL. The routes register
 * these paths, the clients (apps/web, the reports, bench) build their URLs from them.
 * endpoints.ts sets each beside its schemas; this table has no schema code, so the dashboard's
 * bundle can carry it without TypeBox. `:name` segments are path parameters.
 */
export const API_PATHS = {
  health: { method: 'GET', path: '/healthz' },
  ready: { method: 'GET', path: '/readyz' },
  openapi: { method: 'GET', path: '/api/v1/openapi.json' },
  stats: { method: 'GET', path: '/api/v1/stats' },
  fanouts: { method: 'GET', path: '/api/v1/fanouts' },
  edges: { method: 'GET', path: '/api/v1/edges' },
  stragglers: { method: 'GET', path: '/api/v1/stragglers' },
  hosts: { method: 'GET', path: '/api/v1/hosts' },
  episodes: { method: 'GET', path: '/api/v1/episodes' },
  incidents: { method: 'GET', path: '/api/v1/incidents' },
  leaves: { method: 'GET', path: '/api/v1/leaves' },
  traces: { method: 'GET', path: '/api/v1/traces' },
  trace: { method: 'GET', path: '/api/v1/traces/:traceId' },
  span: { method: 'GET', path: '/api/v1/traces/:traceId/spans/:spanId' },
  criticalPath: { method: 'GET', path: '/api/v1/criticalpath' },
  whatif: { method: 'POST', path: '/api/v1/whatif' },
  session: { method: 'GET', path: '/api/v1/session' },
  logIn: { method: 'POST', path: '/api/v1/session' },
  logOut: { method: 'DELETE', path: '/api/v1/session' },
} as const;

export type EndpointName = keyof typeof API_PATHS;
export type HttpMethod = (typeof API_PATHS)[EndpointName]['method'];

/** The `:name` parameters of a path, as an object type (`object` for a path without any). */
export type PathParams<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Record<Name, string> & PathParams<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Record<Name, string>
    : object;

/** Query values as sent: numbers or strings (the server parses `from=1700000000000`). */
export type QueryValue = string | number | boolean | undefined;

/**
 * An endpoint's path with its parameters filled in (each URI-encoded). Throws naming the
 * parameter when one is missing, rather than sending a request for `/traces/undefined`.
 */
export function apiPath<N extends EndpointName>(
  name: N,
  params?: PathParams<(typeof API_PATHS)[N]['path']>,
): string {
  const values = (params ?? {}) as Record<string, string | undefined>;
  return API_PATHS[name].path.replace(/:([A-Za-z]+)/g, (_m, key: string) => {
    const v = values[key];
    if (v === undefined) throw new Error(`${API_PATHS[name].path}: path parameter ${key} missing`);
    return encodeURIComponent(v);
  });
}

/** `path?query`, leaving out undefined and empty values, in the order given. */
export function withQuery(path: string, query: Record<string, QueryValue> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s === '' ? path : `${path}?${s}`;
}
