import {
  API_PATHS,
  apiPath,
  withQuery,
  type EndpointName,
  type PathParams,
  type QueryValue,
} from './paths';
import type { EndpointBody, EndpointQuery, EndpointResponse } from './endpoints';

// The typed client of the REST contract. It imports the schemas as types only (the paths are
// plain data), so the dashboard's bundle carries no TypeBox; answers are typed, not checked:
// callers check them at their edge (apps/web's decoders, the report's `parse`).

type Part<K extends string, T> = [T] extends [never]
  ? { [P in K]?: never }
  : Partial<T> extends T
    ? { [P in K]?: T }
    : { [P in K]: T };

/** What a request to endpoint N carries: path parameters, query, body, as the endpoint takes. */
export type EndpointRequest<N extends EndpointName> = Part<
  'params',
  keyof PathParams<(typeof API_PATHS)[N]['path']> extends never
    ? never
    : PathParams<(typeof API_PATHS)[N]['path']>
> &
  Part<'query', EndpointQuery<N>> &
  Part<'body', EndpointBody<N>>;

/** The URL (path and query, no origin) of a request to endpoint N. */
export function endpointUrl<N extends EndpointName>(
  name: N,
  req: Omit<EndpointRequest<N>, 'body'>,
): string {
  const r = req as { params?: PathParams<(typeof API_PATHS)[N]['path']>; query?: object };
  return withQuery(apiPath(name, r.params), r.query as Record<string, QueryValue> | undefined);
}

/**
 * A 200 answer's text as endpoint N's response type: for callers that time or measure the text
 * themselves (bench). Typed, not checked, like apiClient's answers.
 */
export function parseAnswer<N extends EndpointName>(_name: N, text: string): EndpointResponse<N> {
  return JSON.parse(text) as EndpointResponse<N>;
}

/** A non-2xx answer, with the server's own message (a 400 names the bad parameter). */
export class ApiCallError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly url: string,
  ) {
    super(message);
    this.name = 'ApiCallError';
  }
}

/** What apiClient needs of `fetch` (the global one fits, in Node and in browsers). */
export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal },
) => Promise<{ ok: boolean; status: number; statusText: string; text(): Promise<string> }>;

export interface ApiClient {
  /** The full URL (base included) of a request. */
  url<N extends EndpointName>(name: N, req: Omit<EndpointRequest<N>, 'body'>): string;
  /** Sends the request; resolves to the parsed JSON answer, rejects with ApiCallError. */
  call<N extends EndpointName>(
    name: N,
    req: EndpointRequest<N>,
    opts?: { signal?: AbortSignal; headers?: Record<string, string> },
  ): Promise<EndpointResponse<N>>;
}

function errorMessage(text: string, status: number, statusText: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    if (typeof body.error === 'string') return body.error;
    if (typeof body.message === 'string') return body.message;
  } catch {
    // Not JSON (a proxy's HTML page): the status line is the best we have.
  }
  return text === '' ? `${status} ${statusText}` : text;
}

/** A client of the REST API at `base` (an origin, or '' for same-origin), sending with `fetch`. */
export function apiClient(fetch: FetchLike, base = ''): ApiClient {
  const root = base.replace(/\/+$/, '');
  const url: ApiClient['url'] = (name, req) => `${root}${endpointUrl(name, req)}`;
  return {
    url,
    async call(name, req, opts = {}) {
      const target = url(name, req);
      const body = (req as { body?: unknown }).body;
      const res = await fetch(target, {
        method: API_PATHS[name].method,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...opts.headers,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      const text = await res.text();
      if (!res.ok)
        throw new ApiCallError(res.status, errorMessage(text, res.status, res.statusText), target);
      return JSON.parse(text) as EndpointResponse<typeof name>;
    },
  };
}
