import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ApiContext } from './context';

/** Where `npm run build:web` (vite build in apps/web) puts the dashboard. */
const WEB_DIST = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'web', 'dist');

// Paths that belong to the API (or are probes): an unknown one is a JSON 404, never the app.
const NOT_THE_APP = /^\/(api|v1|healthz|readyz)(\/|$)/;

// No inline style: the Content-Security-Policy (server/access.ts) allows none.
const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tailscope: dashboard not built</title></head>
<body><h1>The dashboard is not built yet</h1>
<p>Run <code>npm run build:web</code> (or start with <code>npm start</code>, which builds it first),
then reload this page. The API is up: see <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p>
</body></html>`;

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * Serves the built dashboard from `dist`: files as they are (hashed assets cached for a year,
 * index.html never), and index.html for every other GET that is not an API path, so client-side
 * routes (/fanouts, /traces/:id...) survive a reload. Without a build, a page that says how to
 * make one.
 */
export function webRoutesFrom(dist: string) {
  return async function webRoutes(app: FastifyInstance, _ctx: ApiContext): Promise<void> {
    await app.register(fastifyStatic, { root: dist, serve: false });

    const sendIndex = (reply: FastifyReply) =>
      reply
        .header('cache-control', 'no-cache')
        .sendFile('index.html', dist, { cacheControl: false });

    app.get('/*', { schema: { hide: true } }, (req, reply) => {
      const path = decodeURIComponent((req.url.split('?')[0] ?? '/').replace(/\+/g, ' '));
      if (NOT_THE_APP.test(path))
        return reply.status(404).send({ error: `no route ${req.method} ${path}`, statusCode: 404 });
      if (!existsSync(join(dist, 'index.html')))
        return reply.status(503).type('text/html; charset=utf-8').send(NOT_BUILT);
      const rel = normalize(path).replace(/^([/\\])+/, '');
      const file = join(dist, rel);
      if (rel !== '' && file.startsWith(dist + sep) && isFile(file)) {
        const hashed = rel.startsWith(`assets${sep}`);
        return reply.sendFile(rel, dist, {
          maxAge: hashed ? 365 * 86_400_000 : 0,
          immutable: hashed,
        });
      }
      // A missing asset is a 404, not the app: a stale tab must not parse HTML as JavaScript.
      if (/\.[a-z0-9]{1,8}$/i.test(rel))
        return reply.status(404).type('text/plain').send('not found');
      return sendIndex(reply);
    });
  };
}

export const webRoutes = webRoutesFrom(WEB_DIST);
