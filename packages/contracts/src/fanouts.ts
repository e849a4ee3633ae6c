import { Type, type Static } from 'typebox';
import { SamplingInfo } from './sampling';
import { ErrorBody, MAX_DURATION_MS, MAX_SEED, Name, Quantiles, RangeQuery } from './bounds';
import { EdgeStructure } from './edges';

/** GET /api/v1/fanouts: Table 1, tail amplification and its curve per fan-out operation. */

export const Verdict = Type.Union([
  Type.Literal('independent'),
  Type.Literal('correlated'),
  Type.Literal('insufficient-data'),
  Type.Literal('queueing'),
]);

export const CurvePoint = Type.Object({
  width: Type.Integer(),
  observed: Type.Optional(Type.Number()),
  predicted: Type.Number(),
  fanouts: Type.Optional(Type.Integer()),
});
export type CurvePoint = Static<typeof CurvePoint>;

export const Amplification = Type.Object({
  thresholdMs: Type.Number(),
  observedTailProbability: Type.Number(),
  predictedTailProbability: Type.Number(),
  verdict: Verdict,
  fanouts: Type.Integer(),
  tailFanouts: Type.Integer(),
  observedLow: Type.Number({ description: 'Wilson 95% interval of the observed probability' }),
  observedHigh: Type.Number(),
  singleCallCdf: Type.Number({ description: 'F(t): share of calls with latency <= thresholdMs' }),
});
export type Amplification = Static<typeof Amplification>;

export const Fanout = Type.Object({
  parentService: Type.String(),
  parentOperation: Type.String(),
  leafService: Type.String(),
  leafOperation: Type.String(),
  requests: Type.Integer({ description: 'Fan-outs (requests) in the range' }),
  width: Type.Object({ p50: Type.Number(), max: Type.Integer() }),
  table1: Type.Object({
    oneLeaf: Quantiles,
    p95Leaves: Quantiles,
    allLeaves: Quantiles,
    slowest5pctShareOfP99: Type.Number({
      description: '(allLeaves.p99 - p95Leaves.p99) / allLeaves.p99',
    }),
  }),
  amplification: Amplification,
  curve: Type.Array(CurvePoint),
  structure: Type.Optional(
    Type.Union([Type.Literal('parallel'), Type.Literal('pool')], {
      description: 'How most requests ran the calls (sequential edges are in /api/v1/edges)',
    }),
  ),
  concurrency: Type.Optional(
    Type.Object(
      { p50: Type.Number(), max: Type.Integer() },
      { description: 'Most calls in flight at once, per request' },
    ),
  ),
  poolSize: Type.Optional(Type.Integer({ description: 'Estimated workers k of a pool' })),
  queueWaitMs: Type.Optional(Quantiles),
});
export type Fanout = Static<typeof Fanout>;

/** An edge named in an empty fan-out answer. */
export const EdgeStructureSummary = Type.Object({
  parentService: Type.String(),
  parentOperation: Type.String(),
  leafService: Type.String(),
  leafOperation: Type.String(),
  requests: Type.Integer(),
  structure: EdgeStructure,
});
export type EdgeStructureSummary = Static<typeof EdgeStructureSummary>;

export const FanoutsQuery = Type.Object({
  ...RangeQuery,
  parentService: Type.Optional(Name('Parent service')),
  leafService: Type.Optional(Name('Leaf service')),
  leafOperation: Type.Optional(Name('Leaf operation')),
  thresholdMs: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: MAX_DURATION_MS,
      description: 'Amplification threshold t, ms. Default: the operation’s single-call p99.',
    }),
  ),
  seed: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_SEED,
      description: 'Seed of the random-leaf pick (default 1)',
    }),
  ),
});
export type FanoutsQuery = Static<typeof FanoutsQuery>;

export const FanoutsResponse = Type.Object({
  from: Type.Number(),
  to: Type.Number(),
  fanouts: Type.Array(Fanout),
  hint: Type.Optional(
    Type.String({ description: 'Why no fan-out was found, when none was (and what was found)' }),
  ),
  edges: Type.Optional(
    Type.Array(EdgeStructureSummary, {
      description: 'When no fan-out was found: the edges with repeated calls, to show instead',
    }),
  ),
  sampling: Type.Optional(SamplingInfo),
});
export type FanoutsResponse = Static<typeof FanoutsResponse>;

export const FanoutsRoute = {
  summary: 'Fan-out operations: Table 1, tail amplification and its curve (docs/analysis.md)',
  querystring: FanoutsQuery,
  response: { 200: FanoutsResponse, 400: ErrorBody },
};
