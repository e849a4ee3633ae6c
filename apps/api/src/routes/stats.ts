import { StatsRoute } from '@tailscope/contracts';
import type { ApiContext } from '../server/context';
import type { RouteApp } from '../server/route-app';
import { selectStats } from '../store';
import { selectSamplingInfo } from '../store/sampling';

export function statsRoutes(app: RouteApp, ctx: ApiContext): void {
  app.get('/api/v1/stats', { schema: StatsRoute }, async () => {
    const ingest = ctx.ingestStatus?.();
    return {
      ...(await selectStats(ctx.store)),
      ingestSpansPerSecond: ctx.ingestRate(),
      sampling: await selectSamplingInfo(ctx.store),
      ...(ingest
        ? {
            replayBacklogSpans: ingest.replayBacklogSpans,
            walDamage: ingest.walDamage,
            deadLetter: ingest.deadLetter,
          }
        : {}),
    };
  });
}
