import { Type, type Static } from 'typebox';
import { ErrorBody } from './bounds';

/**
 * /api/v1/session: the dashboard's log-in. With TAILSCOPE_API_TOKENS set, POST a token once and
 * the answer sets an HttpOnly, SameSite=Strict cookie that stands for it; REST clients send
 * `Authorization: Bearer <token>` instead and never need this.
 */

/** Longest token a log-in may carry (tokens are header values). */
export const MAX_TOKEN_LENGTH = 4096;

export const SessionState = Type.Object({
  required: Type.Boolean({ description: 'The API needs a token (TAILSCOPE_API_TOKENS is set)' }),
  authenticated: Type.Boolean({
    description: 'This request may call the API (a valid cookie or bearer token, or none needed)',
  }),
});
export type SessionState = Static<typeof SessionState>;

export const SessionLogin = Type.Object(
  {
    token: Type.String({
      minLength: 1,
      maxLength: MAX_TOKEN_LENGTH,
      description: 'One of TAILSCOPE_API_TOKENS',
    }),
  },
  { additionalProperties: false },
);
export type SessionLogin = Static<typeof SessionLogin>;

export const GetSessionRoute = {
  summary: 'Whether the API needs a token and whether this request carries a valid one',
  response: { 200: SessionState },
};

export const PostSessionRoute = {
  summary: 'Log in: a valid API token sets the session cookie',
  body: SessionLogin,
  response: { 200: SessionState, 400: ErrorBody, 401: ErrorBody },
};

export const DeleteSessionRoute = {
  summary: 'Log out: clears the session cookie',
  response: { 200: SessionState },
};
