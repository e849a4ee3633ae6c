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
        summary:
          'The store answers, the schema is in place and ingest can store what it accepts (503 otherwise)',
        response: {
          200: Type.Object({ status: Type.Literal('ready'), store: Type.String() }),
          503: Type.Object({
            status: Type.Union([Type.Literal('starting'), Type.Literal('stuck')]),
            store: Type.String(),
            reason: Type.Optional(Type.String()),
          }),
        },
      },
    },
    async (_req, reply) => {
      const up = ctx.ready() && (await ctx.store.ping().catch(() => false));
      if (!up)
        return reply
          .status(503)
          .send({ status: 'starting' as const, store: ctx.store.description });
      // Ready means a 200 from ingest will reach the store: not while inserts keep failing.
      const writer = ctx.ingestStatus?.().writer;
      if (writer?.stuck)
        return reply
          .status(503)
          .send({ status: 'stuck' as const, store: ctx.store.description, reason: writer.reason });
      return { status: 'ready' as const, store: ctx.store.description };
    },
  );
}
