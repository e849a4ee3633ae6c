import { Type, type Static } from 'typebox';
import { ErrorBody, MAX_LIST_LENGTH, Name, RangeQuery } from './bounds';
import { MAX_FANOUTS } from './stragglers';

/** GET /api/v1/leaves: one operation's leaf calls, packed for the what-if worker. */

export const LEAVES_CONTENT_TYPE = 'application/vnd.tailscope.leaf-calls';
/** Attribute keys `attrs` may name at most. */
export const MAX_ATTRIBUTE_KEYS = 8;

export const LeavesQuery = Type.Object({
  ...RangeQuery,
  leafService: Name('Leaf service (required)', 1),
  leafOperation: Name('Leaf operation (required)', 1),
  attrs: Type.Optional(
    Type.String({
      maxLength: MAX_LIST_LENGTH,
      description: `Comma-separated attribute keys (at most ${MAX_ATTRIBUTE_KEYS}) to include as attr:KEY columns`,
    }),
  ),
  maxFanouts: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_FANOUTS,
      description: 'Cap; above it a deterministic uniform sample (default 200000)',
    }),
  ),
  precision: Type.Optional(
    Type.Union([Type.Literal('f64'), Type.Literal('f32')], {
      description: 'Float width of startMs/durationMs (default f64)',
    }),
  ),
});
export type LeavesQuery = Static<typeof LeavesQuery>;

export const LeavesRoute = {
  summary:
    'The leaf calls of one operation, packed for the what-if worker (format: docs/analysis.md)',
  querystring: LeavesQuery,
  response: {
    200: {
      description: `Packed LeafCalls (${LEAVES_CONTENT_TYPE}): "TSLC", u32 version, u32 header length, JSON header, 8-aligned little-endian columns`,
      content: { [LEAVES_CONTENT_TYPE]: { schema: { type: 'string', format: 'binary' } } },
    },
    400: ErrorBody,
  },
};
