import {
  DEFAULT_DIMENSIONS as DEFAULT_BY,
  DEFAULT_STRAGGLER_FANOUTS as DEFAULT_MAX_FANOUTS,
  StragglersRoute,
} from '@tailscope/contracts';
import {
  attributeKey,
  attributeStragglers,
  parseDimension,
  type Dimension,
} from '@tailscope/analysis';
import type { ApiContext } from '../server/context';
import { badRequest } from '../server/errors';
import { loadLeafCalls } from '../store/fanouts';
import type { RouteApp } from '../server/route-app';
import { optionalNumber, parseRange, requireText } from './fanouts';

const MAX_DIMENSIONS = 12;

/** `by` -> dimensions (host, sharing_mode, background, attr:KEY), 400 naming a bad token. */
export function parseDimensions(raw: string | undefined): Dimension[] {
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
  app.get('/api/v1/stragglers', { schema: StragglersRoute }, async (req) => {
    const q = req.query;
    const leafService = requireText('leafService', q.leafService);
    const leafOperation = requireText('leafOperation', q.leafOperation);
    const range = parseRange(q, Date.now());
    const dimensions = parseDimensions(q.by);
    const thresholdMs = optionalNumber('thresholdMs', q.thresholdMs, 0, Number.MAX_VALUE);
    const tailQuantile = optionalNumber('tailQuantile', q.tailQuantile, 0.5, 0.9999);
    const attributeKeys = dimensions.map(attributeKey).filter((k): k is string => k !== null);
    const loaded = await loadLeafCalls(
      ctx.store,
      { fromNs: range.fromNs, toNs: range.toNs, leafService, leafOperation },
      { attributeKeys, maxFanouts: q.maxFanouts ?? DEFAULT_MAX_FANOUTS },
    );
    const a = attributeStragglers(loaded.calls, {
      dimensions,
      ...(thresholdMs !== undefined ? { thresholdMs } : {}),
      ...(tailQuantile !== undefined ? { tailQuantile } : {}),
      seed: q.seed ?? 1,
    });
    return {
      from: range.fromMs,
      to: range.toMs,
      tailThresholdMs: Number.isFinite(a.tailThresholdMs) ? a.tailThresholdMs : null,
      tailFanouts: a.tailFanouts,
      fanouts: a.fanouts,
      calls: a.calls,
      sampled: loaded.sampled,
      omittedRows: a.omittedRows,
      rows: a.rows,
    };
  });
}
