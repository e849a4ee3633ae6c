import {
  API_PATHS,
  DEFAULT_DIMENSIONS as DEFAULT_BY,
  DEFAULT_STRAGGLER_FANOUTS as DEFAULT_MAX_FANOUTS,
  StragglersRoute,
} from '@tailscope/contracts';
import { attributeKey, parseDimension, type Dimension } from '@tailscope/analysis';
import type { ApiContext } from './context';
import {
  badRequest,
  type RouteApp,
  clientGone,
  optionalNumber,
  parseRange,
  requireText,
} from '../foundation';
import { loadLeafCalls } from '../store/fanouts';
import { analysisPool } from '../whatif-worker/pool';
import { clampRange } from './clamp-range';
import { rangeSampling } from './sampling';
import { cachedAnswer } from '../cache';
import { withMeasuredCauses } from './stragglers-measured';
import { withCauseEvidence } from './stragglers-evidence';

const MAX_DIMENSIONS = 12;

/** `by` -> dimensions (host, sharing_mode, background, attr:KEY), 400 naming a bad token. */
function parseDimensions(raw: string | undefined): Dimension[] {
  const tokens = [
    ...new Set(
      (raw === undefined || raw === '' ? DEFAULT_BY : raw).split(',').map((t) => t.trim()),
    ),
  ];
  if (tokens.length > MAX_DIMENSIONS)
    throw badRequest(`by takes at most ${MAX_DIMENSIONS} dimensions, got ${tokens.length}`);
  return tokens.map((t) => {
    const d = parseDimension(t);
    if (!d)
      throw badRequest(
        `by: unknown dimension ${JSON.stringify(t)} (use host, sharing_mode, background or attr:KEY)`,
      );
    return d;
  });
}

export function stragglerRoutes(app: RouteApp, ctx: ApiContext): void {
  const pool = analysisPool(app, ctx.store);
  app.get(API_PATHS.stragglers.path, { schema: StragglersRoute }, async (req, reply) => {
    const cancel = clientGone(reply);
    const q = req.query;
    const leafService = requireText('leafService', q.leafService);
    const leafOperation = requireText('leafOperation', q.leafOperation);
    const range = await clampRange(ctx.store, parseRange(q, Date.now()));
    const dimensions = parseDimensions(q.by);
    const { thresholdMs } = q;
    const tailQuantile = optionalNumber('tailQuantile', q.tailQuantile, 0.5, 0.9999);
    const attributeKeys = dimensions.map(attributeKey).filter((k): k is string => k !== null);
    const params = {
      leafService,
      leafOperation,
      dimensions,
      thresholdMs,
      tailQuantile,
      maxFanouts: q.maxFanouts ?? DEFAULT_MAX_FANOUTS,
      seed: q.seed ?? 1,
      asked: [range.fromMs, range.toMs],
    };
    return cachedAnswer(ctx.store, 'stragglers', params, range, async () => {
      // Weighted by each fan-out's adjusted count when some span in range carries a threshold.
      const sampling = await rangeSampling(ctx.store, range);
      const loaded = await loadLeafCalls(
        ctx.store,
        { fromNs: range.fromNs, toNs: range.toNs, leafService, leafOperation },
        {
          attributeKeys,
          maxFanouts: params.maxFanouts,
          weights: sampling.weighted,
        },
      );
      // Off the main thread: up to maxFanouts (1M) fan-outs of Fisher tests and re-draws.
      const a = await pool.run(
        {
          kind: 'stragglers',
          calls: loaded.calls,
          options: {
            dimensions,
            ...(thresholdMs !== undefined ? { thresholdMs } : {}),
            ...(tailQuantile !== undefined ? { tailQuantile } : {}),
            seed: params.seed,
          },
        },
        cancel,
      );
      return {
        from: range.fromMs,
        to: range.toMs,
        tailThresholdMs: Number.isFinite(a.tailThresholdMs) ? a.tailThresholdMs : null,
        tailFanouts: a.tailFanouts,
        fanouts: a.fanouts,
        calls: a.calls,
        sampled: loaded.sampled,
        omittedRows: a.omittedRows,
        rows: await withCauseEvidence(ctx.store, withMeasuredCauses(a.rows, loaded.measured), {
          fromNs: range.fromNs,
          toNs: range.toNs,
          hosts: loaded.calls.hosts,
          measured: loaded.measured,
        }),
        sampling,
      };
    });
  });
}
