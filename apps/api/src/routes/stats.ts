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
            // Ingest's own state (docs/ingest.md): absent on a server without ingest.
            replayBacklogSpans: Type.Optional(Type.Number()),
            walDamage: Type.Optional(
              Type.Object({
                damagedRecords: Type.Number(),
                damagedBytes: Type.Number(),
                tornBytes: Type.Number(),
              }),
            ),
            deadLetter: Type.Optional(
              Type.Object({
                batches: Type.Number(),
                spans: Type.Number(),
                lastReason: Type.Union([Type.String(), Type.Null()]),
              }),
            ),
          }),
        },
      },
    },
    async () => {
      const ingest = ctx.ingestStatus?.();
      return {
        ...(await selectStats(ctx.store)),
        ingestSpansPerSecond: ctx.ingestRate(),
        ...(ingest
          ? {
              replayBacklogSpans: ingest.replayBacklogSpans,
              walDamage: ingest.walDamage,
              deadLetter: ingest.deadLetter,
            }
          : {}),
      };
    },
  );
}
