import { HealthRoute, ReadyRoute } from '@tailscope/contracts';
import type { ApiContext } from '../server/context';
import type { RouteApp } from '../server/route-app';

export function healthRoutes(app: RouteApp, ctx: ApiContext): void {
  app.get('/healthz', { schema: HealthRoute }, () => ({ status: 'ok' as const }));

  app.get('/readyz', { schema: ReadyRoute }, async (_req, reply) => {
    const up = ctx.ready() && (await ctx.store.ping().catch(() => false));
    if (!up)
      return reply.status(503).send({ status: 'starting' as const, store: ctx.store.description });
    return { status: 'ready' as const, store: ctx.store.description };
  });
}
