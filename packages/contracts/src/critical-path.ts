import { Type, type Static } from 'typebox';
import { SamplingInfo } from './sampling';
import { ErrorBody, Name, RangeQuery } from './bounds';

/**
 * GET /api/v1/criticalpath: where the tail's extra time goes. For requests of one root
 * operation, the mean critical-path time per (service, operation) in the slow band (above the
 * band's percentile of root duration) against the typical band (p40-p60).
 */

export const CriticalPathBand = Type.Union(
  [Type.Literal('p90'), Type.Literal('p95'), Type.Literal('p99'), Type.Literal('p999')],
  { description: 'Slow band: root durations at or above this percentile (default p99)' },
);
export type CriticalPathBand = Static<typeof CriticalPathBand>;

/** Traces per band whose critical path is computed at most (a deterministic sample above). */
export const CRITICAL_PATH_SAMPLE = 500;
/** Below this many slow requests the slow band's means are noise; the answer says so. */
export const CRITICAL_PATH_MIN_SLOW = 20;
/** Root operations listed for the page's root selector at most. */
export const CRITICAL_PATH_MAX_ROOTS = 50;

export const CriticalPathQuery = Type.Object({
  ...RangeQuery,
  service: Type.Optional(Name('Root service (default: that of the busiest root operation)')),
  operation: Type.Optional(Name('Root operation (default: the busiest of the service)')),
  band: Type.Optional(CriticalPathBand),
});
export type CriticalPathQuery = Static<typeof CriticalPathQuery>;

export const CriticalPathEntry = Type.Object({
  service: Type.String(),
  operation: Type.String(),
  slowMs: Type.Number({ description: 'Mean critical-path ms per slow request' }),
  typicalMs: Type.Number({ description: 'Mean critical-path ms per typical request' }),
  slowShare: Type.Number({ description: "Share (0..1) of the slow band's critical path" }),
  typicalShare: Type.Number({ description: "Share (0..1) of the typical band's critical path" }),
  deltaMs: Type.Number({ description: 'slowMs - typicalMs' }),
});
export type CriticalPathEntry = Static<typeof CriticalPathEntry>;

const Sampled = Type.Integer({
  description: `Requests of the band whose critical path was computed (at most ${CRITICAL_PATH_SAMPLE}, a deterministic sample by trace id)`,
});
const Exemplars = Type.Array(Type.String(), {
  description: 'Trace ids of the band, slowest first (slow) or nearest the median (typical)',
});

export const CriticalPathResponse = Type.Object({
  service: Type.String({ description: 'Root service ("" when the range holds no request)' }),
  operation: Type.String(),
  requests: Type.Integer({ description: 'Requests (root spans) of the operation in the range' }),
  slow: Type.Object({
    fromMs: Type.Number({ description: 'Root duration the slow band starts at, ms' }),
    requests: Type.Integer(),
    sampled: Type.Optional(Sampled),
  }),
  typical: Type.Object({
    fromMs: Type.Number({ description: 'p40 of root duration, ms' }),
    toMs: Type.Number({ description: 'p60 of root duration, ms' }),
    requests: Type.Integer(),
    sampled: Type.Optional(Sampled),
  }),
  entries: Type.Array(CriticalPathEntry, { description: 'Sorted by deltaMs, largest first' }),
  band: Type.Optional(CriticalPathBand),
  from: Type.Optional(Type.Number()),
  to: Type.Optional(Type.Number()),
  exemplars: Type.Optional(Type.Object({ slow: Exemplars, typical: Exemplars })),
  trusted: Type.Optional(
    Type.Boolean({
      description: `false when the slow band holds fewer than ${CRITICAL_PATH_MIN_SLOW} requests: its means are noise`,
    }),
  ),
  warning: Type.Optional(Type.String({ description: 'Why the numbers cannot be trusted' })),
  sampling: Type.Optional(SamplingInfo),
  roots: Type.Optional(
    Type.Array(
      Type.Object({
        service: Type.String(),
        operation: Type.String(),
        requests: Type.Integer({ description: 'Root spans of the operation in the range' }),
      }),
      {
        description: `The range's request root operations, busiest first (at most ${CRITICAL_PATH_MAX_ROOTS}); background-activity spans are not requests`,
      },
    ),
  ),
});
export type CriticalPathResponse = Static<typeof CriticalPathResponse>;

export const CriticalPathRoute = {
  summary: 'Aggregated critical path: slow requests against typical ones',
  querystring: CriticalPathQuery,
  response: { 200: CriticalPathResponse, 400: ErrorBody },
};
