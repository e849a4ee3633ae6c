import {
  API_PATHS,
  DeleteSessionRoute,
  GetSessionRoute,
  PostSessionRoute,
} from '@tailscope/contracts';
import type { ApiContext } from './context';
import { HttpError, type RouteApp, TokenSet, apiTokenProblem, SESSION_COOKIE } from '../foundation';

/** Kept for 30 days: the dashboard asks for the token once, not every visit. */
const SESSION_MAX_AGE_S = 30 * 86_400;

/**
 * The dashboard's log-in: a valid API token becomes an HttpOnly, SameSite=Strict cookie (the
 * page's scripts never see it; other sites never send it). docs/operations.md.
 */
export function sessionRoutes(app: RouteApp, ctx: ApiContext): void {
  const tokens = new TokenSet(ctx.settings.apiTokens);
  const secure = ctx.settings.tlsCert !== undefined;
  const state = (authenticated: boolean) => ({ required: !tokens.open, authenticated });

  app.get(API_PATHS.session.path, { schema: GetSessionRoute }, (req) =>
    state(apiTokenProblem(req, tokens) === undefined),
  );

  app.post(API_PATHS.logIn.path, { schema: PostSessionRoute }, (req, reply) => {
    if (tokens.open) return state(true);
    if (!tokens.matches(req.body.token))
      throw new HttpError(401, 'that token is not one of TAILSCOPE_API_TOKENS');
    void reply.setCookie(SESSION_COOKIE, req.body.token, {
      path: '/',
      httpOnly: true,
      sameSite: 'strict',
      secure,
      maxAge: SESSION_MAX_AGE_S,
    });
    return state(true);
  });

  app.delete(API_PATHS.logOut.path, { schema: DeleteSessionRoute }, (_req, reply) => {
    void reply.clearCookie(SESSION_COOKIE, {
      path: '/',
      httpOnly: true,
      sameSite: 'strict',
      secure,
    });
    return state(tokens.open);
  });
}
