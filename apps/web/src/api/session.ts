import { API_PATHS, type SessionState } from '@tailscope/contracts';

const SESSION = API_PATHS.session.path;

/**
 * The dashboard's log-in (/api/v1/session): with TAILSCOPE_API_TOKENS set, the token is posted
 * once and the server keeps it in an HttpOnly cookie the page's scripts never see.
 */

/** Fired when any API call answers 401: the session ended (token revoked, cookie cleared). */
export const UNAUTHORIZED_EVENT = 'tailscope:unauthorized';

export function announceUnauthorized(): void {
  window.dispatchEvent(new Event(UNAUTHORIZED_EVENT));
}

function decodeSession(body: unknown): SessionState {
  const b = body as Partial<SessionState> | null;
  if (typeof b?.required !== 'boolean' || typeof b.authenticated !== 'boolean')
    throw new Error(`unexpected answer from ${SESSION}`);
  return { required: b.required, authenticated: b.authenticated };
}

export async function getSession(): Promise<SessionState> {
  const res = await fetch(SESSION);
  if (!res.ok) throw new Error(`${SESSION} answered ${res.status}`);
  return decodeSession(await res.json());
}

/** Logs in; resolves to the server's message when the token is refused. */
export async function logIn(token: string): Promise<{ ok: true } | { ok: false; message: string }> {
  const res = await fetch(API_PATHS.logIn.path, {
    method: API_PATHS.logIn.method,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  if (res.ok) return { ok: true };
  const body = (await res.json().catch(() => ({}))) as { error?: unknown };
  return {
    ok: false,
    message: typeof body.error === 'string' ? body.error : `HTTP ${res.status}`,
  };
}

export async function logOut(): Promise<void> {
  await fetch(API_PATHS.logOut.path, { method: API_PATHS.logOut.method });
}
