import { isIP } from 'node:net';
import { hostname } from 'node:os';
import type { FastifyInstance, FastifyReply } from 'fastify';
import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import { API_PATHS } from '@tailscope/contracts';
import type { Settings } from '../config';
import { apiTokenProblem, TokenSet } from '../foundation';

/**
 * Who may talk to the API, and what every answer says to the browser (docs/operations.md):
 * security headers on every response, a Host check against DNS rebinding, a cross-origin check
 * on requests that change something, CORS only for configured origins, and, with
 * TAILSCOPE_API_TOKENS, a bearer token or the dashboard's session cookie on /api and /metrics.
 */

/** Open without a token: the log-in itself (the probes and the static app need none either). */
const OPEN_ROUTES = new Set<string>([API_PATHS.session.path]);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Routes behind the API token: the REST API and the metrics (by route pattern, not raw path). */
export function needsApiToken(route: string | undefined): boolean {
  if (route === undefined || OPEN_ROUTES.has(route)) return false;
  return route.startsWith('/api/') || route === '/metrics';
}

/** The host name of a Host header, without port or IPv6 brackets, lower case. */
function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']'));
  return h.replace(/:\d*$/, '');
}

/**
 * Whether a Host header may reach the API. DNS rebinding needs a name the attacker controls that
 * resolves to this machine, so IP literals and loopback names are always fine; other names only
 * when listed. With API tokens and no TAILSCOPE_ALLOWED_HOSTS any name is accepted: a rebound
 * page has neither the token nor the cookie (it is scoped to the real name).
 */
export function hostAllowed(header: string | undefined, settings: Settings): boolean {
  if (header === undefined || header.trim() === '') return false;
  if (settings.apiTokens.length > 0 && settings.allowedHosts.length === 0) return true;
  const name = hostName(header);
  if (isIP(name) !== 0) return true;
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (name === settings.host.toLowerCase() || name === hostname().toLowerCase()) return true;
  return settings.allowedHosts.includes(name) || settings.allowedHosts.includes('*');
}

function refuse(reply: FastifyReply, statusCode: number, error: string): FastifyReply {
  return reply.status(statusCode).send({ error, statusCode });
}

/** Helmet's headers with a CSP for the built dashboard: no inline scripts or styles. */
function helmetOptions(tls: boolean) {
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        // The favicon is a data: URL in index.html.
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        workerSrc: ["'self'"],
        fontSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        ...(tls ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    referrerPolicy: { policy: 'no-referrer' as const },
    // The same as frame-ancestors 'none', for browsers that only know the older header.
    frameguard: { action: 'deny' as const },
    // HSTS over plain HTTP is ignored by browsers, and on a TLS localhost it would pin every
    // other local port to HTTPS for a year: only when this server speaks TLS, and for a day.
    hsts: tls ? { maxAge: 86_400, includeSubDomains: false } : false,
  };
}

/** Installs the access rules on the root instance, before any route is registered. */
export async function installAccess(app: FastifyInstance, settings: Settings): Promise<void> {
  const tls = settings.tlsCert !== undefined;
  const tokens = new TokenSet(settings.apiTokens);
  await app.register(helmet, helmetOptions(tls));
  await app.register(cookie);
  if (settings.corsOrigins.length > 0) {
    await app.register(cors, {
      origin: [...settings.corsOrigins],
      methods: ['GET', 'POST', 'DELETE'],
      allowedHeaders: ['Authorization', 'Content-Type'],
      // Cross-origin callers send the bearer header; the cookie is for the dashboard only.
      credentials: false,
      maxAge: 600,
    });
  }
  const scheme = tls ? 'https' : 'http';
  app.addHook('onRequest', async (req, reply) => {
    if (!hostAllowed(req.headers.host, settings)) {
      return refuse(
        reply,
        421,
        `Host ${JSON.stringify(req.headers.host ?? '')} is not served here (a DNS rebinding guard): use the address Tailscope listens on, or add the name to TAILSCOPE_ALLOWED_HOSTS`,
      );
    }
    // A page on another origin may send a POST (a form, a no-cors fetch) with the cookie when it
    // is same-site (another port on the same host): the browser's Origin header gives it away.
    const origin = req.headers.origin;
    if (origin !== undefined && !SAFE_METHODS.has(req.method)) {
      const own = `${scheme}://${req.headers.host ?? ''}`;
      if (origin !== own && !settings.corsOrigins.includes(origin))
        return refuse(
          reply,
          403,
          `cross-origin ${req.method} from ${origin} refused: only pages of this server (or TAILSCOPE_CORS_ORIGINS) may change anything`,
        );
    }
    if (!needsApiToken(req.routeOptions.url)) return;
    const problem = apiTokenProblem(req, tokens);
    if (problem === undefined) return;
    void reply.header('WWW-Authenticate', 'Bearer realm="tailscope"');
    return refuse(reply, 401, problem);
  });
}
