import {
  apiPath,
  endpointUrl,
  type EndpointBody,
  type EndpointName,
  type EndpointRequest,
} from '@tailscope/contracts';
import type { Decoder } from './decode';
import { announceUnauthorized } from './session';
import { isShared, noteAnswerAge, sharedAnswer, wantsFresh } from './shared-answers';

/** A failed API call, with the server's own message (it names the bad parameter on a 400). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** A request's URL, spelled by the contract (paths and typed query in @tailscope/contracts). */
export function apiUrl<N extends EndpointName>(
  name: N,
  req: Omit<EndpointRequest<N>, 'body'>,
): string {
  return endpointUrl(name, req);
}

async function readError(res: Response, path: string): Promise<ApiError> {
  let message = `${res.status} ${res.statusText}`;
  try {
    const body = (await res.json()) as { error?: unknown; message?: unknown };
    if (typeof body.error === 'string') message = body.error;
    else if (typeof body.message === 'string') message = body.message;
  } catch {
    // Not JSON (a proxy's HTML page): the status line is the best we have.
  }
  return new ApiError(res.status, message, path);
}

export async function getJson<N extends EndpointName, T>(
  name: N,
  req: Omit<EndpointRequest<N>, 'body'>,
  decode: Decoder<T>,
  signal?: AbortSignal,
): Promise<T> {
  const url = apiUrl(name, req);
  // Analysis answers are shared by URL between pages (shared-answers.ts); the rest is asked.
  const body = isShared(url) ? await askSharedUrl(url, signal) : await readJson(url, signal);
  return decode(body, '');
}

function askSharedUrl(url: string, signal?: AbortSignal): Promise<unknown> {
  return sharedAnswer(
    url,
    (s) =>
      readJson(url, s, wantsFresh(url), (age) => {
        noteAnswerAge(url, age);
      }),
    signal,
  );
}

/**
 * Starts the ask of a shared route's answer that a page is about to make (state/ask-ahead.ts):
 * the page's getJson of the same URL joins it. Resolves to the answer's JSON (undefined for a
 * route that is not shared, which is not asked); errors are the page's to show when it asks.
 */
export function askShared<N extends EndpointName>(
  name: N,
  req: Omit<EndpointRequest<N>, 'body'>,
): Promise<unknown> {
  const url = apiUrl(name, req);
  if (!isShared(url)) return Promise.resolve(undefined);
  const p = askSharedUrl(url);
  p.catch(() => undefined);
  return p;
}

/** The server's header on an answer it served from its live answers (its age, ms). */
const AGE_HEADER = 'x-tailscope-answer-age-ms';

async function readJson(
  url: string,
  signal?: AbortSignal,
  fresh = false,
  onAge?: (ageMs: number | undefined) => void,
): Promise<unknown> {
  const init: RequestInit = {
    ...(signal ? { signal } : {}),
    ...(fresh ? { headers: { 'cache-control': 'no-cache' } } : {}),
  };
  let res = await fetch(url, init);
  // public/preload.js asks for /api/v1/stats (or a trace page its trace) before the log-in:
  // that 401 is stale once logged in.
  if (res.status === 401)
    res = await fetch(url, { cache: 'no-store', ...(signal ? { signal } : {}) });
  if (res.status === 401) announceUnauthorized();
  if (!res.ok) throw await readError(res, url);
  const age = res.headers.get(AGE_HEADER);
  onAge?.(age === null || !Number.isFinite(Number(age)) ? undefined : Number(age));
  return (await res.json()) as unknown;
}

/** POSTs a JSON body (the what-if replay); errors as getJson. */
export async function postJson<N extends EndpointName, T>(
  name: N,
  body: EndpointBody<N>,
  decode: Decoder<T>,
  signal?: AbortSignal,
): Promise<T> {
  const path = apiPath(name);
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
  if (!res.ok) throw await readError(res, path);
  return decode(await res.json(), '');
}
