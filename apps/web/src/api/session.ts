import type { SessionState } from '@tailscope/contracts';

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
    throw new Error('unexpected answer from /api/v1/session');
  return { required: b.required, authenticated: b.authenticated };
}

export async function getSession(): Promise<SessionState> {
  const res = await fetch('/api/v1/session');
  if (!res.ok) throw new Error(`/api/v1/session answered ${res.status}`);
  return decodeSession(await res.json());
}

/** Logs in; resolves to the server's message when the token is refused. */
export async function logIn(token: string): Promise<{ ok: true } | { ok: false; message: string }> {
  const res = await fetch('/api/v1/session', {
    method: 'POST',
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
  await fetch('/api/v1/session', { method: 'DELETE' });
}
