import type { FastifyRequest } from 'fastify';
import type {} from '@fastify/cookie';
import { bearerToken, type TokenSet } from './tokens';

// A request's credentials with TAILSCOPE_API_TOKENS set: a bearer token, or the dashboard's
// session cookie (docs/operations.md). The checks that use them live in server/access.ts.

/** The dashboard's session cookie: the token itself, HttpOnly and SameSite=Strict. */
export const SESSION_COOKIE = 'tailscope_session';
/**
 * Sec-Fetch-Site values under which the session cookie counts: the dashboard's own pages
 * (`same-origin`) and a user typing the address (`none`). An allow-list, so a value this code
 * does not know (a new one, a different case, padding) is refused rather than let through.
 */
const COOKIE_SITES = new Set(['same-origin', 'none']);

/** Whether a request carrying the session cookie comes from where the cookie may be used. */
export function cookieSiteAllowed(header: string | string[] | undefined): boolean {
  // No header: not a browser that sends fetch metadata (curl, an old browser); the cookie's
  // SameSite=Strict is then the only guard, as it was before browsers sent Sec-Fetch-Site.
  if (header === undefined) return true;
  const value = Array.isArray(header) ? header.join(',') : header;
  return COOKIE_SITES.has(value.trim().toLowerCase());
}

/** Why this request may not call the API, or undefined when it may. */
export function apiTokenProblem(req: FastifyRequest, tokens: TokenSet): string | undefined {
  if (tokens.open) return undefined;
  const header = req.headers.authorization;
  if (header !== undefined) {
    const token = bearerToken(header);
    if (token === undefined)
      return 'the Authorization header must be "Bearer <token>" with one of TAILSCOPE_API_TOKENS';
    return tokens.matches(token)
      ? undefined
      : 'the bearer token in the Authorization header is not one of TAILSCOPE_API_TOKENS';
  }
  const session = req.cookies[SESSION_COOKIE];
  if (session !== undefined) {
    // SameSite=Strict still sends the cookie from another port of the same host (same site):
    // the browser's Sec-Fetch-Site tells such a page from the dashboard's own.
    if (!cookieSiteAllowed(req.headers['sec-fetch-site']))
      return 'the session cookie only works from the dashboard\'s own pages: other origins send "Authorization: Bearer <token>"';
    return tokens.matches(session)
      ? undefined
      : 'the dashboard session is no longer valid (its token is not in TAILSCOPE_API_TOKENS): log in again';
  }
  return 'this endpoint needs an API token (TAILSCOPE_API_TOKENS is set): send "Authorization: Bearer <token>", or log in to the dashboard';
}
