import { API_PATHS, StatsRoute } from '@tailscope/contracts';
import type { ApiContext } from './context';
import type { RouteApp } from '../foundation';
import { retentionOf } from '../store/schema/retention';
import { storeFigures } from '../cache/store-figures';

export function statsRoutes(app: RouteApp, ctx: ApiContext): void {
  app.get(API_PATHS.stats.path, { schema: StatsRoute }, async () => {
    const ingest = ctx.ingestStatus?.();
    const listen = ctx.listen?.();
    // What the store holds comes from the last figures computed (cache/store-figures.ts), so
    // this answers at once while analysis queries hold the engine; the ingest figures below
    // are read each time.
    const { figures, ageMs } = await storeFigures(ctx.store).read();
    const { stats, sampling } = figures;
    return {
      ...stats,
      storeFiguresAgeMs: ageMs,
      ingestSpansPerSecond: ctx.ingestRate(),
      readOnly: ctx.store.readOnly,
      accelerators: ctx.store.accelerators,
      retentionDays: retention(ctx),
      sampling,
      ...(ingest
        ? {
            replayBacklogSpans: ingest.replayBacklogSpans,
            walDamage: ingest.walDamage,
            deadLetter: ingest.deadLetter,
          }
        : {}),
      ...(listen ? { listen } : {}),
      ...(ctx.warmedAt ? { warmedUnixMs: ctx.warmedAt() } : {}),
    };
  });
}

/** The retention settings as applied (none on a read-only store, which never alters a table). */
function retention(ctx: ApiContext): {
  traces: number | null;
  typedAttributes: number | null;
  fanouts: number | null;
} {
  const r = retentionOf(ctx.settings);
  const day = (d: number | undefined): number | null =>
    ctx.store.readOnly || d === undefined ? null : d;
  return {
    traces: day(r.traces),
    typedAttributes: day(r.typedAttributes),
    fanouts: day(r.fanouts),
  };
}
