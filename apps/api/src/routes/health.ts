import { API_PATHS, HealthRoute, ReadyRoute } from '@tailscope/contracts';
import type { ApiContext } from './context';
import type { RouteApp } from '../foundation';

export function healthRoutes(app: RouteApp, ctx: ApiContext): void {
  app.get(API_PATHS.health.path, { schema: HealthRoute }, () => ({ status: 'ok' as const }));

  app.get(API_PATHS.ready.path, { schema: ReadyRoute }, async (_req, reply) => {
    // Ready means a 200 from ingest will reach the store: not while no insert can finish (a
    // full disk, the store down), and that reason is what an operator needs, so it comes first.
    const writer = ctx.ingestStatus?.().writer;
    if (writer?.stuck)
      return reply
        .status(503)
        .send({ status: 'stuck' as const, store: ctx.store.description, reason: writer.reason });
    const up = ctx.ready() && (await ctx.store.ping().catch(() => false));
    if (!up)
      return reply.status(503).send({ status: 'starting' as const, store: ctx.store.description });
    return {
      status: 'ready' as const,
      store: ctx.store.description,
      ...(ctx.store.readOnly ? { readOnly: true } : {}),
    };
  });
}
