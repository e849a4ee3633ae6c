import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../server/context';
import { selectStats } from '../store';

export function statsRoutes(app: FastifyInstance, ctx: ApiContext): void {
  app.get(
    '/api/v1/stats',
    {
      schema: {
        summary: 'What the store holds',
        response: {
          200: Type.Object({
            spans: Type.Number(),
            traces: Type.Number(),
            services: Type.Number(),
            oldestUnixNano: Type.Union([Type.String(), Type.Null()]),
            newestUnixNano: Type.Union([Type.String(), Type.Null()]),
            ingestSpansPerSecond: Type.Number(),
          }),
        },
      },
    },
    async () => ({ ...(await selectStats(ctx.store)), ingestSpansPerSecond: ctx.ingestRate() }),
  );
}
