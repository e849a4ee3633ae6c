import {
  API_PATHS,
  EpisodesRoute,
  type SamplingInfo,
  type ServiceEpisode,
} from '@tailscope/contracts';
import {
  detectEpisodes,
  episodeWindowSeconds,
  mergeSameFault,
  type DetectedEpisode,
  type Series,
} from '@tailscope/analysis';
import type { ApiContext } from './context';
import { type RouteApp, parseRange } from '../foundation';
import { selectEpisodeWindows, type EpisodeScope, type EpisodeWindowRow } from '../store/episodes';
import type { Store } from '../store';
import { selectSamplingInfo } from '../store/traces/sampling';
import { clampRange } from './clamp-range';
import { cachedAnswer } from '../cache';
import { withEvidence } from './episodes-evidence';
import { withCauses } from './episodes-cause';

/** The identity of a series: what an episode names. */
type SeriesName = Pick<
  EpisodeWindowRow,
  'kind' | 'service' | 'host' | 'parentService' | 'parentOperation' | 'operation'
>;

/** Groups the store's (series, window) rows into the series detectEpisodes judges. */
export function toSeries(rows: readonly EpisodeWindowRow[]): {
  series: Series[];
  names: Map<string, SeriesName>;
} {
  const bySeries = new Map<string, Series & { windows: EpisodeWindowRow[] }>();
  const names = new Map<string, SeriesName>();
  for (const r of rows) {
    const name: SeriesName = {
      kind: r.kind,
      service: r.service,
      host: r.host,
      parentService: r.parentService,
      parentOperation: r.parentOperation,
      operation: r.operation,
    };
    const key = JSON.stringify(Object.values(name));
    let s = bySeries.get(key);
    if (!s) {
      bySeries.set(key, (s = { key, windows: [] }));
      names.set(key, name);
    }
    s.windows.push(r);
  }
  return { series: [...bySeries.values()], names };
}

/** The API record of a detected episode. */
export function toApiEpisode(e: DetectedEpisode, n: SeriesName): ServiceEpisode {
  const edge = n.kind === 'edge';
  return {
    service: n.service,
    host: edge ? '*' : n.host,
    ...(edge
      ? {
          parentService: n.parentService,
          parentOperation: n.parentOperation,
          operation: n.operation,
        }
      : {}),
    kind: n.kind,
    fromMs: e.fromMs,
    toMs: e.toMs,
    p99Ms: e.p99Ms,
    baselineP99Ms: e.baselineP99Ms,
    ratio: Number.isFinite(e.ratio) ? e.ratio : Number.MAX_VALUE,
    calls: e.calls,
    qValue: e.qValue,
  };
}

/** The episodes of a scope and the call graph its rows show (caller -> callee services). */
export interface JudgedEpisodes {
  episodes: ServiceEpisode[];
  windowsTested: number;
  sampling: SamplingInfo;
  edges: { caller: string; callee: string }[];
  /**
   * Caller operations that no call names as its callee (service, operation): the operations
   * requests enter by, for incidents' root series (routes/incidents.ts).
   */
  entryOperations?: { service: string; operation: string }[];
}

/**
 * The episodes of the stored part of a range, as /api/v1/episodes answers them, with the call
 * graph of the same rows: kept in the answer cache under one key, so /api/v1/incidents (which
 * the Overview asks beside /api/v1/episodes) reuses the same judgement instead of redoing it.
 */
export function judgeEpisodes(
  store: Store,
  scope: EpisodeScope,
  asked: [number, number],
): Promise<JudgedEpisodes> {
  const params = { service: scope.service, asked };
  return cachedAnswer(store, 'episodes', params, scope, async () => {
    const rows = await selectEpisodeWindows(store, scope);
    const sampling = await selectSamplingInfo(store, scope);
    const { series, names } = toSeries(rows);
    const found = detectEpisodes(series, { windowMs: scope.windowMs });
    const merged = mergeSameFault(
      found.episodes.flatMap((e) => {
        const n = names.get(e.key);
        return n ? [toApiEpisode(e, n)] : [];
      }),
    );
    const episodes = await withCauses(
      store,
      await withEvidence(store, merged, scope.windowMs),
      scope.windowMs,
    );
    const edgeNames = [...names.values()].filter((n) => n.kind === 'edge');
    const edges = edgeNames.map((n) => ({ caller: n.parentService, callee: n.service }));
    const called = new Set(edgeNames.map((n) => `${n.service}\0${n.operation}`));
    const entries = new Map(
      edgeNames
        .filter((n) => !called.has(`${n.parentService}\0${n.parentOperation}`))
        .map((n) => [
          `${n.parentService}\0${n.parentOperation}`,
          { service: n.parentService, operation: n.parentOperation },
        ]),
    );
    const entryOperations = [...entries.values()];
    return { episodes, windowsTested: found.windowsTested, sampling, edges, entryOperations };
  });
}

export function episodeRoutes(app: RouteApp, ctx: ApiContext): void {
  app.get(API_PATHS.episodes.path, { schema: EpisodesRoute }, async (req) => {
    const q = req.query;
    const asked = parseRange(q, Date.now());
    const range = await clampRange(ctx.store, asked);
    // The window follows the range asked (not the stored part), so the same question
    // asked twice over a growing store keeps its windows.
    const windowSeconds = episodeWindowSeconds(asked.toMs - asked.fromMs);
    const windowMs = windowSeconds * 1000;
    // No stored span in the range: nothing to judge, and no query to run.
    if (range.fromNs >= range.toNs)
      return {
        windowSeconds,
        episodes: [],
        from: asked.fromMs,
        to: asked.toMs,
        windowsTested: 0,
        sampling: { weighted: false, spansWithoutSamplingInfo: 0 },
      };
    // Every series is judged, in one Benjamini-Hochberg family, and `service` keeps its
    // episodes afterwards: an episode has the same q-value here, on the Overview and in the
    // incidents (which filter the same way), and the judgement is one kept answer for all.
    const scope = {
      fromNs: range.fromNs,
      toNs: range.toNs,
      windowMs,
      clampedTo: range.toNs !== asked.toNs,
    };
    const judged = await judgeEpisodes(ctx.store, scope, [asked.fromMs, asked.toMs]);
    return {
      windowSeconds,
      episodes:
        q.service === undefined
          ? judged.episodes
          : judged.episodes.filter((e) => e.service === q.service),
      from: asked.fromMs,
      to: asked.toMs,
      windowsTested: judged.windowsTested,
      sampling: judged.sampling,
    };
  });
}
