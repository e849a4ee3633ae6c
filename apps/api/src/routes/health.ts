import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../server/context';

export function healthRoutes(app: FastifyInstance, ctx: ApiContext): void {
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'The process is alive',
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        summary: 'The store answers and the schema is in place (503 until then)',
        response: {
          200: Type.Object({ status: Type.Literal('ready'), store: Type.String() }),
          503: Type.Object({ status: Type.Literal('starting'), store: Type.String() }),
        },
      },
    },
    async (_req, reply) => {
      const up = ctx.ready() && (await ctx.store.ping().catch(() => false));
      if (!up)
        return reply
          .status(503)
          .send({ status: 'starting' as const, store: ctx.store.description });
      return { status: 'ready' as const, store: ctx.store.description };
    },
  );
}
