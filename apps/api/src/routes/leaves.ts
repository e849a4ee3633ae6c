import { Type, type Static } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { packLeafCalls } from '@tailscope/analysis';
import type { ApiContext } from '../server/context';
import { badRequest } from '../server/errors';
import { loadLeafCalls } from '../store/fanouts';
import {
  clampRange,
  MAX_FANOUTS_CAP,
  optionalNumber,
  parseRange,
  RangeQuery,
  requireText,
} from './fanouts';

export const LEAVES_CONTENT_TYPE = 'application/vnd.tailscope.leaf-calls';
const MAX_ATTRIBUTE_KEYS = 8;

/** `a,b,c` -> distinct non-empty keys, at most MAX_ATTRIBUTE_KEYS (400 names `name`). */
export function parseAttributeKeys(name: string, raw: string | undefined): string[] {
  if (raw === undefined || raw === '') return [];
  const keys = [...new Set(raw.split(',').map((k) => k.trim()))];
  if (keys.some((k) => k === ''))
    throw badRequest(`${name} has an empty attribute key: ${JSON.stringify(raw)}`);
  if (keys.length > MAX_ATTRIBUTE_KEYS)
    throw badRequest(`${name} takes at most ${MAX_ATTRIBUTE_KEYS} keys, got ${keys.length}`);
  return keys;
}

const LeavesQuery = Type.Object({
  ...RangeQuery,
  leafService: Type.String({ description: 'Leaf service (required)' }),
  leafOperation: Type.String({ description: 'Leaf operation (required)' }),
  attrs: Type.Optional(
    Type.String({ description: 'Comma-separated attribute keys to include as attr:KEY columns' }),
  ),
  maxFanouts: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      description: 'Cap; above it a deterministic uniform sample (default 200000)',
    }),
  ),
  precision: Type.Optional(
    Type.Union([Type.Literal('f64'), Type.Literal('f32')], {
      description: 'Float width of startMs/durationMs (default f64)',
    }),
  ),
});

export function leavesRoutes(app: FastifyInstance, ctx: ApiContext): void {
  app.get(
    '/api/v1/leaves',
    {
      schema: {
        summary:
          'The leaf calls of one operation, packed for the what-if worker (format: docs/analysis.md)',
        querystring: LeavesQuery,
        produces: [LEAVES_CONTENT_TYPE],
        response: {
          200: {
            description: `Packed LeafCalls (${LEAVES_CONTENT_TYPE}): "TSLC", u32 version, u32 header length, JSON header, 8-aligned little-endian columns`,
            content: { [LEAVES_CONTENT_TYPE]: { schema: { type: 'string', format: 'binary' } } },
          },
        },
      },
    },
    async (req, reply) => {
      const q = req.query as Static<typeof LeavesQuery>;
      const leafService = requireText('leafService', q.leafService);
      const leafOperation = requireText('leafOperation', q.leafOperation);
      const range = await clampRange(ctx.store, parseRange(q, Date.now()));
      const attributeKeys = parseAttributeKeys('attrs', q.attrs);
      const maxFanouts = optionalNumber('maxFanouts', q.maxFanouts, 1, MAX_FANOUTS_CAP);
      const loaded = await loadLeafCalls(
        ctx.store,
        { fromNs: range.fromNs, toNs: range.toNs, leafService, leafOperation },
        { attributeKeys, maxFanouts: maxFanouts ?? 200_000 },
      );
      const meta = {
        leafService,
        leafOperation,
        from: range.fromMs,
        to: range.toMs,
        sampled: loaded.sampled,
      };
      const body = packLeafCalls(loaded.calls, meta, { float32: q.precision === 'f32' });
      return reply
        .header('content-type', LEAVES_CONTENT_TYPE)
        .send(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
    },
  );
}
