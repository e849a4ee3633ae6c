import { API_PATHS, IncidentsRoute, type IncidentsResponse } from '@tailscope/contracts';
import {
  CAUSE_TIE_MARGIN,
  detectEpisodes,
  episodeWindowSeconds,
  groupEpisodes,
  withRootEpisodes,
  type IncidentEpisode,
} from '@tailscope/analysis';
import type { ApiContext } from './context';
import { type RouteApp, parseRange } from '../foundation';
import { cachedAnswer } from '../cache';
import { judgeEpisodes } from './episodes';
import { clampRange } from './clamp-range';
import { analyseIncident, msToNs } from './incidents-analysis';
import { selectRootSeries } from '../store/episodes';
import type { Store } from '../store';

/**
 * The episodes of request roots (store/episodes/roots.ts): the root operations' own series,
 * judged as episodes judges calls, in a Benjamini-Hochberg family of their own (the call
 * episodes stay exactly /api/v1/episodes'). Kind `root`, host `*`, `operation` the root's.
 */
async function rootEpisodes(
  store: Store,
  scope: { fromNs: bigint; toNs: bigint; windowMs: number },
  entries: readonly { service: string; operation: string }[],
): Promise<IncidentEpisode[]> {
  const series = await selectRootSeries(store, scope, entries);
  const byKey = new Map(series.map((r) => [JSON.stringify([r.service, r.operation]), r]));
  const found = detectEpisodes(
    [...byKey].map(([key, r]) => ({ key, windows: r.windows })),
    { windowMs: scope.windowMs },
  );
  return found.episodes.flatMap((e) => {
    const r = byKey.get(e.key);
    if (!r) return [];
    return [
      {
        kind: 'root' as const,
        service: r.service,
        host: '*',
        operation: r.operation,
        fromMs: e.fromMs,
        toMs: e.toMs,
        ratio: Number.isFinite(e.ratio) ? e.ratio : Number.MAX_VALUE,
        calls: e.calls,
      },
    ];
  });
}

/**
 * GET /api/v1/incidents (docs/analysis.md "Incidents"): the episodes of the range (as
 * /api/v1/episodes finds them, over every series), grouped along the call edges the same rows
 * show, each group ranked for root causes. Bounded: the episodes' cost, plus for at most
 * MAX_ANALYSED incidents (the worst) four bounded queries each; at most MAX_INCIDENTS listed.
 */
const MAX_ANALYSED = 5;
const MAX_INCIDENTS = 50;

export function incidentRoutes(app: RouteApp, ctx: ApiContext): void {
  app.get(API_PATHS.incidents.path, { schema: IncidentsRoute }, async (req) => {
    const q = req.query;
    const asked = parseRange(q, Date.now());
    const range = await clampRange(ctx.store, asked);
    const windowSeconds = episodeWindowSeconds(asked.toMs - asked.fromMs);
    const windowMs = windowSeconds * 1000;
    const answer = (over: Partial<IncidentsResponse>): IncidentsResponse => ({
      incidents: [],
      from: asked.fromMs,
      to: asked.toMs,
      windowSeconds,
      tieMargin: CAUSE_TIE_MARGIN,
      sampling: { weighted: false, spansWithoutSamplingInfo: 0 },
      ...over,
    });
    if (range.fromNs >= range.toNs) return answer({});
    const scope = {
      fromNs: range.fromNs,
      toNs: range.toNs,
      windowMs,
      clampedTo: range.toNs !== asked.toNs,
    };
    const params = { service: q.service, asked: [asked.fromMs, asked.toMs] };
    return cachedAnswer(ctx.store, 'incidents', params, range, async () => {
      // The same judgement as /api/v1/episodes over every series (shared in the answer cache).
      const judged = await judgeEpisodes(ctx.store, scope, [asked.fromMs, asked.toMs]);
      const { episodes, edges, sampling } = judged;
      const roots = await rootEpisodes(ctx.store, scope, judged.entryOperations ?? []);
      const groups = withRootEpisodes<IncidentEpisode>(groupEpisodes(episodes, edges), roots)
        .filter((g) => q.service === undefined || g.services.includes(q.service))
        .slice(0, MAX_INCIDENTS);
      const worst = new Set(
        [...groups]
          .sort((a, b) => (b.episodes[0]?.ratio ?? 0) - (a.episodes[0]?.ratio ?? 0))
          .slice(0, MAX_ANALYSED),
      );
      // One incident after another: each runs its queries under the request's budget, and
      // two cores are better spent on one incident's parallel reads than on several at once.
      const incidents = [];
      for (const g of groups) {
        // Typical requests come from outside every other incident: the baseline stops at the
        // end of the one before and the start of the one after.
        const before = groups.filter((o) => o.toMs <= g.fromMs).map((o) => o.toMs);
        const after = groups.filter((o) => o.fromMs >= g.toMs).map((o) => o.fromMs);
        const clear = {
          fromNs: before.length > 0 ? msToNs(Math.max(...before)) : range.fromNs,
          toNs: after.length > 0 ? msToNs(Math.min(...after)) : range.toNs,
        };
        incidents.push(
          await analyseIncident(ctx.store, g, clear, worst.has(g), judged.entryOperations),
        );
      }
      return answer({ incidents, sampling });
    });
  });
}
