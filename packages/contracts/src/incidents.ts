import { Type, type Static } from 'typebox';
import { ErrorBody, Name, RangeQuery } from './bounds';
import { SamplingInfo } from './sampling';

/**
 * GET /api/v1/incidents: co-occurring episodes joined along call edges, each with its root-cause
 * candidates ranked by where the extra time originates (DESIGN.md "Definitions": Incident;
 * docs/analysis.md "Incidents").
 */

export const IncidentsQuery = Type.Object({
  ...RangeQuery,
  service: Type.Optional(Name('Only incidents that touch calls into this service')),
});
export type IncidentsQuery = Static<typeof IncidentsQuery>;

export const RootCauseEvidence = Type.Object({
  kind: Type.Union(
    [Type.Literal('self'), Type.Literal('network'), Type.Literal('uninstrumented')],
    {
      description:
        "self: the span's own time (no callee running); network: a caller's time outside the callee's server span; uninstrumented: a call with no server span",
    },
  ),
  slowMs: Type.Number({ description: 'Mean critical-path ms per slow request of the incident' }),
  typicalMs: Type.Number({ description: 'Mean critical-path ms per typical request before it' }),
  deltaMs: Type.Number({ description: 'slowMs - typicalMs' }),
  ratio: Type.Number({ description: 'slowMs / typicalMs (typical floored at 1 us)' }),
  slowRequests: Type.Integer({ description: 'Slow requests whose critical paths were compared' }),
  typicalRequests: Type.Integer({ description: 'Typical requests before the incident compared' }),
  foldedMs: Type.Number({
    description:
      'Extra ms of uninstrumented calls counted for this caller, whose own time rose with them',
  }),
  queuedMs: Type.Optional(
    Type.Number({
      description:
        'Extra ms its callers waited just before calling it, counted for it because its own time rose (a pool or lock it kept busy)',
    }),
  ),
  waitsMs: Type.Optional(
    Type.Number({
      description:
        "Extra ms of its waits on several callees' answers, which rose together with its own time, counted for it (its process, not their network)",
    }),
  ),
  tiedWith: Type.Array(Type.String(), {
    description: 'Candidates whose score is within the tie margin: they cannot be told apart',
  }),
  metric: Type.Optional(
    Type.Object(
      {
        signal: Type.String({
          description: 'Evidence kind (docs/metrics.md), e.g. neighbour-pressure',
        }),
        metric: Type.Optional(Type.String({ description: 'The metric read' })),
        value: Type.Number({ description: "The signal's mean inside the episode" }),
        baseline: Type.Number({ description: "The signal's mean just before it" }),
        ratio: Type.Number({
          description: 'value / baseline (Number.MAX_VALUE when baseline is 0)',
        }),
      },
      {
        description:
          "The candidate host's metric signal that fired and fits where its time went (a resource signal for own time, network errors for time outside the server span); a candidate with it ranks before a tied one without",
      },
    ),
  ),
});

export const RootCause = Type.Object({
  service: Type.String({
    description: 'Service the extra time originates in (for network: the callee)',
  }),
  host: Type.Optional(Type.String()),
  operation: Type.Optional(Type.String()),
  score: Type.Number({ description: 'Share (0..1) of the extra critical-path time it explains' }),
  cause: Type.String({ description: 'The cause in words' }),
  evidence: RootCauseEvidence,
});
export type RootCause = Static<typeof RootCause>;

export const IncidentExemplar = Type.Object({
  traceId: Type.String(),
  durationMs: Type.Number({ description: "The request's root span duration, ms" }),
});

export const PathDiffRow = Type.Object({
  service: Type.String(),
  slowMs: Type.Number({ description: 'Mean critical-path ms per slow request of the incident' }),
  typicalMs: Type.Number({ description: 'Mean critical-path ms per typical request before it' }),
  deltaMs: Type.Number({ description: 'slowMs - typicalMs' }),
  networkDeltaMs: Type.Number({
    description: "Of deltaMs, the callers' wait outside the service's server spans",
  }),
});

export const Incident = Type.Object({
  id: Type.String({ description: 'Stable id: hash of the start and the services' }),
  fromMs: Type.Number({ description: 'Start of the first slow window, epoch ms' }),
  toMs: Type.Number({ description: 'End of the last slow window (exclusive), epoch ms' }),
  requests: Type.Integer({
    description: 'Requests (traces) with a span of an affected service in [fromMs, toMs)',
  }),
  rootCauses: Type.Array(RootCause, { description: 'Best first' }),
  affected: Type.Array(
    Type.Object({
      service: Type.String(),
      operation: Type.String({ description: "Callee operation ('*': every operation of a host)" }),
      ratio: Type.Number({ description: "Worst window p99 over the series' baseline p99" }),
      kind: Type.Optional(
        Type.Literal('root', {
          description:
            "root: the requests' own series (a root operation), slowed by the incident; absent: calls into the service",
        }),
      ),
    }),
    { description: 'The series whose episodes make the incident, worst first' },
  ),
  exemplars: Type.Optional(
    Type.Object(
      {
        slow: Type.Array(IncidentExemplar, { description: 'Slowest first' }),
        typical: Type.Array(IncidentExemplar),
      },
      {
        description:
          'Requests of the compared bands to open: slow ones in the incident, typical ones before it',
      },
    ),
  ),
  criticalPathDiff: Type.Optional(
    Type.Array(PathDiffRow, {
      description:
        'Per service, its critical-path time in the slow requests against the typical ones, largest growth first: whose time grew on the path',
    }),
  ),
});
export type Incident = Static<typeof Incident>;

export const IncidentsResponse = Type.Object({
  incidents: Type.Array(Incident, { description: 'Earliest first' }),
  from: Type.Optional(Type.Number()),
  to: Type.Optional(Type.Number()),
  windowSeconds: Type.Optional(Type.Number()),
  tieMargin: Type.Optional(
    Type.Number({ description: 'Root causes whose scores differ by less cannot be told apart' }),
  ),
  sampling: Type.Optional(SamplingInfo),
});
export type IncidentsResponse = Static<typeof IncidentsResponse>;

export const IncidentsRoute = {
  summary: 'Incidents: co-occurring episodes joined along call edges, with ranked root causes',
  querystring: IncidentsQuery,
  response: { 200: IncidentsResponse, 400: ErrorBody },
};
