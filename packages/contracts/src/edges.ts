import { Type, type Static } from 'typebox';
import { SamplingInfo } from './sampling';
import { ErrorBody, Name, RangeQuery } from './bounds';

/**
 * GET /api/v1/edges: every caller -> callee edge (DESIGN.md "Definitions": Call, Edge), with the
 * structure of its repeated calls per request, duplicates and clock skew in the range.
 */

/** How one request's calls on an edge ran: overlapping, through k workers, one at a time. */
export const EdgeStructure = Type.Union([
  Type.Literal('parallel'),
  Type.Literal('pool'),
  Type.Literal('sequential'),
  Type.Literal('single'),
]);
export type EdgeStructure = Static<typeof EdgeStructure>;

/** Quantiles (type 7), ms. */
export const EdgeQuantiles = Type.Object(
  { p50: Type.Number(), p95: Type.Number(), p99: Type.Number(), p999: Type.Number() },
  { description: 'Quantiles (type 7), ms' },
);

export const StructureShares = Type.Object(
  {
    parallel: Type.Number(),
    pool: Type.Number(),
    sequential: Type.Number(),
    single: Type.Number(),
  },
  { description: 'Share of requests (0..1) whose calls on this edge ran each way' },
);

export const Edge = Type.Object({
  parentService: Type.String({ description: 'Caller service' }),
  parentOperation: Type.String({
    description: 'Caller operation: the nearest ancestor of the calls that is not a wrapper',
  }),
  leafService: Type.String({ description: 'Callee service' }),
  leafOperation: Type.String({ description: 'Callee operation' }),
  requests: Type.Integer({ description: 'Requests (caller spans) with calls on this edge' }),
  calls: Type.Optional(
    Type.Integer({ description: 'Calls on this edge (duplicates counted once)' }),
  ),
  wrappedCalls: Type.Optional(
    Type.Integer({ description: 'Calls found behind at least one wrapper span' }),
  ),
  callsPerRequest: Type.Object({ p50: Type.Number(), max: Type.Integer() }),
  structure: EdgeStructure,
  structureShares: Type.Optional(StructureShares),
  concurrency: Type.Object(
    { p50: Type.Number(), max: Type.Integer() },
    { description: 'Most calls in flight at once, per request' },
  ),
  poolSize: Type.Optional(
    Type.Integer({ description: 'Estimated workers k, when the structure is pool' }),
  ),
  callLatency: EdgeQuantiles,
  queueWaitMs: Type.Optional(EdgeQuantiles),
  shareOfParent: Type.Object(
    { p50: Type.Number(), p95: Type.Number(), p99: Type.Number(), p999: Type.Number() },
    {
      description:
        "Share (0..1) of the caller's duration from the first call's start to the last call's end",
    },
  ),
});
export type Edge = Static<typeof Edge>;

export const SkewPair = Type.Object({
  clientHost: Type.String(),
  serverHost: Type.String(),
  calls: Type.Integer({ description: 'Calls whose SERVER span lay outside the CLIENT span' }),
  maxMs: Type.Number({ description: 'Largest distance outside, ms' }),
});
export type SkewPair = Static<typeof SkewPair>;

export const EdgesQuery = Type.Object({
  ...RangeQuery,
  parentService: Type.Optional(Name('Caller service')),
  leafService: Type.Optional(Name('Callee service')),
});
export type EdgesQuery = Static<typeof EdgesQuery>;

export const EdgesResponse = Type.Object({
  from: Type.Number(),
  to: Type.Number(),
  edges: Type.Array(Edge),
  duplicates: Type.Integer({
    description: 'Spans in the range stored more than once (extra copies, counted once)',
  }),
  skew: Type.Array(SkewPair),
  hint: Type.Optional(Type.String()),
  sampling: Type.Optional(SamplingInfo),
});
export type EdgesResponse = Static<typeof EdgesResponse>;

export const EdgesRoute = {
  summary:
    'Every caller -> callee edge with the structure of its repeated calls (docs/analysis.md)',
  querystring: EdgesQuery,
  response: { 200: EdgesResponse, 400: ErrorBody },
};
