import { StatsRoute } from '@tailscope/contracts';
import type { ApiContext } from '../server/context';
import type { RouteApp } from '../server/route-app';
import { selectStats } from '../store';

export function statsRoutes(app: RouteApp, ctx: ApiContext): void {
  app.get('/api/v1/stats', { schema: StatsRoute }, async () => {
    const ingest = ctx.ingestStatus?.();
    const listen = ctx.listen?.();
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
      ...(listen ? { listen } : {}),
    };
  });
}
