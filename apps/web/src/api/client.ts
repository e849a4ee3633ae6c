import type { Decoder } from './decode';
import { announceUnauthorized } from './session';
import { isShared, sharedAnswer } from './shared-answers';

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

export type Params = Record<string, string | number | undefined>;

export function apiUrl(path: string, params: Params = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s === '' ? path : `${path}?${s}`;
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

export async function getJson<T>(
  path: string,
  params: Params,
  decode: Decoder<T>,
  signal?: AbortSignal,
): Promise<T> {
  const url = apiUrl(path, params);
  // Analysis answers are shared by URL between pages (shared-answers.ts); the rest is asked.
  const body = isShared(url)
    ? await sharedAnswer(url, (s) => readJson(url, s), signal)
    : await readJson(url, signal);
  return decode(body, '');
}

async function readJson(url: string, signal?: AbortSignal): Promise<unknown> {
  let res = await fetch(url, signal ? { signal } : {});
  // public/preload.js asks for /api/v1/stats (or a trace page its trace) before the log-in:
  // that 401 is stale once logged in.
  if (res.status === 401)
    res = await fetch(url, { cache: 'no-store', ...(signal ? { signal } : {}) });
  if (res.status === 401) announceUnauthorized();
  if (!res.ok) throw await readError(res, url);
  return (await res.json()) as unknown;
}

/** POSTs a JSON body (the what-if replay); errors as getJson. */
export async function postJson<T>(
  path: string,
  body: unknown,
  decode: Decoder<T>,
  signal?: AbortSignal,
): Promise<T> {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
  if (!res.ok) throw await readError(res, path);
  return decode(await res.json(), '');
}
