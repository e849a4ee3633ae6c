import { Type, type Static } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { attributeKey, parseDimension, type Dimension } from '@tailscope/analysis';
import type { ApiContext } from '../server/context';
import { badRequest } from '../server/errors';
import { loadLeafCalls } from '../store/fanouts';
import { analysisPool, clientGone } from '../whatif-worker/pool';
import {
  clampRange,
  MAX_FANOUTS_CAP,
  MAX_THRESHOLD_MS,
  optionalNumber,
  parseRange,
  RangeQuery,
  requireText,
} from './fanouts';

const MAX_DIMENSIONS = 12;
/**
 * Attribution reads every call of the fan-outs it analyses; past 20,000 fan-outs a uniform
 * sample keeps the answer near a second (10M spans, 2 cores: 1.5 s sampled vs 3.3 s for all
 * 50,000) while 1% tail fan-outs still number 200. Ask for more with maxFanouts.
 */
const DEFAULT_MAX_FANOUTS = 20_000;
const DEFAULT_BY = 'host,sharing_mode,background';

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

const StragglersQuery = Type.Object({
  ...RangeQuery,
  leafService: Type.String({ description: 'Leaf service (required)' }),
  leafOperation: Type.String({ description: 'Leaf operation (required)' }),
  by: Type.Optional(
    Type.String({
      description: `Comma-separated dimensions: host, sharing_mode, background, attr:KEY (default ${DEFAULT_BY})`,
    }),
  ),
  thresholdMs: Type.Optional(
    Type.Number({
      description: 'Tail threshold on the all-leaves time, ms (overrides tailQuantile)',
    }),
  ),
  tailQuantile: Type.Optional(
    Type.Number({
      description: 'Tail threshold as a quantile of the all-leaves time (default 0.99)',
    }),
  ),
  seed: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 4294967295,
      description: 'Seed of the p99-drop re-draws (default 1)',
    }),
  ),
  maxFanouts: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      description: `Fan-outs analysed at most (default ${DEFAULT_MAX_FANOUTS}; above, a deterministic uniform sample and sampled: true)`,
    }),
  ),
});

const Row = Type.Object({
  dimension: Type.String({ description: 'host, sharing_mode, background or attr:KEY' }),
  value: Type.String(),
  calls: Type.Integer(),
  stragglers: Type.Integer({ description: 'Tail fan-outs whose straggler has this value' }),
  trafficShare: Type.Number(),
  stragglerShare: Type.Number(),
  riskRatio: Type.Union([Type.Number(), Type.Null()]),
  riskRatioLow: Type.Union([Type.Number(), Type.Null()]),
  riskRatioHigh: Type.Union([Type.Number(), Type.Null()]),
  pValue: Type.Number({ description: 'Fisher exact, two-sided' }),
  qValue: Type.Number({
    description: 'Benjamini-Hochberg over every value of every dimension asked',
  }),
  cause: Type.Boolean({ description: 'qValue < 0.05 and riskRatio > 1' }),
  p99DropMs: Type.Union([Type.Number(), Type.Null()]),
  explainedBy: Type.Union([Type.String(), Type.Null()], {
    description:
      'For a cause: a stronger cause of another dimension that explains it (dimension=value)',
  }),
});

export function stragglerRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const pool = analysisPool(app, ctx.store);
  app.get(
    '/api/v1/stragglers',
    {
      schema: {
        summary:
          'Attribution of tail stragglers to hosts, sharing modes, background activity and attributes',
        querystring: StragglersQuery,
        response: {
          200: Type.Object({
            from: Type.Number(),
            to: Type.Number(),
            tailThresholdMs: Type.Union([Type.Number(), Type.Null()]),
            tailFanouts: Type.Integer(),
            fanouts: Type.Integer(),
            calls: Type.Integer(),
            sampled: Type.Boolean(),
            omittedRows: Type.Integer(),
            rows: Type.Array(Row),
          }),
        },
      },
    },
    async (req, reply) => {
      const cancel = clientGone(reply);
      const q = req.query as Static<typeof StragglersQuery>;
      const leafService = requireText('leafService', q.leafService);
      const leafOperation = requireText('leafOperation', q.leafOperation);
      const range = await clampRange(ctx.store, parseRange(q, Date.now()));
      const dimensions = parseDimensions(q.by);
      const thresholdMs = optionalNumber('thresholdMs', q.thresholdMs, 0, MAX_THRESHOLD_MS);
      const maxFanouts = optionalNumber('maxFanouts', q.maxFanouts, 1, MAX_FANOUTS_CAP);
      const tailQuantile = optionalNumber('tailQuantile', q.tailQuantile, 0.5, 0.9999);
      const attributeKeys = dimensions.map(attributeKey).filter((k): k is string => k !== null);
      const loaded = await loadLeafCalls(
        ctx.store,
        { fromNs: range.fromNs, toNs: range.toNs, leafService, leafOperation },
        { attributeKeys, maxFanouts: maxFanouts ?? DEFAULT_MAX_FANOUTS },
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
            seed: q.seed ?? 1,
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
        rows: a.rows,
      };
    },
  );
}
