import { Type, type Static } from 'typebox';
import { SamplingInfo } from './sampling';
import { ErrorBody, MAX_DURATION_MS, Name, RangeQuery } from './bounds';

/** GET /api/v1/traces/:traceId: every span of one trace. */

/**
 * Attribute maps: any key, any JSON value (typed attributes come back typed). Spelled with
 * additionalProperties, as OpenAPI documents it, rather than TypeBox's patternProperties.
 */
const Attributes = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  additionalProperties: {},
});

export const SpanKind = Type.String({
  description: 'unspecified | internal | server | client | producer | consumer',
});

export const SpanEvent = Type.Object({
  name: Type.String(),
  timeUnixNano: Type.String(),
  attributes: Attributes,
});
export type SpanEvent = Static<typeof SpanEvent>;

export const SpanLink = Type.Object({
  traceId: Type.String(),
  spanId: Type.String(),
  traceState: Type.String(),
  attributes: Attributes,
});

export const StatusCode = Type.Union([
  Type.Literal('unset'),
  Type.Literal('ok'),
  Type.Literal('error'),
]);
export type StatusCode = Static<typeof StatusCode>;

export const Span = Type.Object({
  traceId: Type.String(),
  spanId: Type.String(),
  parentSpanId: Type.String(),
  traceState: Type.String(),
  name: Type.String(),
  kind: SpanKind,
  service: Type.String(),
  startTimeUnixNano: Type.String(),
  durationNs: Type.Number(),
  attributes: Attributes,
  resource: Attributes,
  scope: Type.Object({ name: Type.String(), version: Type.String() }),
  events: Type.Array(SpanEvent),
  links: Type.Array(SpanLink),
  status: Type.Object({ code: StatusCode, message: Type.String() }),
  omitted: Type.Optional(
    Type.Object(
      { attributes: Type.Integer(), events: Type.Integer(), links: Type.Integer() },
      {
        description:
          'Present when the span held more than the read limit (TAILSCOPE_TRACE_MAX_ATTRIBUTES per attribute map, events and links): how many entries were not returned',
      },
    ),
  ),
});
export type Span = Static<typeof Span>;

export const TraceParams = Type.Object({
  traceId: Type.String({
    minLength: 32,
    maxLength: 32,
    pattern: '^[0-9a-fA-F]{32}$',
    description: '32 hex digits',
  }),
});
export type TraceParams = Static<typeof TraceParams>;

export const CriticalPathSegment = Type.Object({
  spanId: Type.String(),
  selfMs: Type.Number({
    description:
      'Time this span holds on the critical path, ms (0: a wrapper the path passes through)',
  }),
});
export type CriticalPathSegment = Static<typeof CriticalPathSegment>;

export const TraceResponse = Type.Object({
  traceId: Type.String(),
  criticalPath: Type.Array(CriticalPathSegment, {
    description:
      "The root's critical path (DESIGN.md \"Definitions\"), ordered by where each span's stretch starts; the self times sum to the root's duration. Computed over the spans returned (a truncated trace's path is over its first spans)",
  }),
  spans: Type.Array(Span),
  truncated: Type.Boolean({
    description:
      'More spans are stored than returned (at most TAILSCOPE_TRACE_MAX_SPANS, earliest first)',
  }),
  totalSpans: Type.Integer({ description: 'Spans stored for the trace' }),
});
export type TraceResponse = Static<typeof TraceResponse>;

/** What `fields` a trace answer carries: every span in full (default) or the waterfall's. */
export const TraceFields = Type.Union([Type.Literal('full'), Type.Literal('summary')], {
  description:
    "full (default): every span with its attributes, resource, scope, events and links; summary: each span without them (what a waterfall and its critical path need), the answer marked detail: 'summary'; a span's details from /api/v1/traces/{traceId}/spans/{spanId}",
});
export type TraceFields = Static<typeof TraceFields>;

export const TraceQuery = Type.Object({ fields: Type.Optional(TraceFields) });
export type TraceQuery = Static<typeof TraceQuery>;

/** One span of a summary answer: what the waterfall, error legend and critical path draw. */
export const SpanSummary = Type.Object({
  spanId: Type.String(),
  parentSpanId: Type.String(),
  name: Type.String(),
  kind: SpanKind,
  service: Type.String(),
  startTimeUnixNano: Type.String(),
  durationNs: Type.Number(),
  status: Type.Optional(
    Type.Object(
      { code: StatusCode, message: Type.String() },
      { description: 'Absent: unset, without a message (most spans; the answer is smaller)' },
    ),
  ),
  attributes: Type.Optional(
    Type.Unsafe<Record<string, unknown>>({
      type: 'object',
      additionalProperties: {},
      description:
        'Only the attributes a call is named by (peer.service, server.address); absent when none',
    }),
  ),
  resource: Type.Optional(
    Type.Unsafe<Record<string, unknown>>({
      type: 'object',
      additionalProperties: {},
      description:
        "Only the resource attributes naming the span's host and its sharing mode (host.name, k8s.node.name, host.id, service.instance.id, host.sharing_mode); absent when none",
    }),
  ),
});
export type SpanSummary = Static<typeof SpanSummary>;

export const TraceSummaryResponse = Type.Object({
  traceId: Type.String(),
  detail: Type.Literal('summary', {
    description: 'Spans without attributes, resource, scope, events and links (fields=summary)',
  }),
  criticalPath: TraceResponse.properties.criticalPath,
  spans: Type.Array(SpanSummary),
  truncated: TraceResponse.properties.truncated,
  totalSpans: TraceResponse.properties.totalSpans,
  /**
   * The first root span (the earliest span without a parent among them) in full, as
   * /api/v1/traces/{traceId}/spans/{spanId} answers it: what a trace page shows first, without
   * a second request. Absent from servers before stop 45.
   */
  rootSpan: Type.Optional(Span),
});
export type TraceSummaryResponse = Static<typeof TraceSummaryResponse>;

export const TraceRoute = {
  summary: 'Every span of one trace',
  params: TraceParams,
  querystring: TraceQuery,
  response: {
    200: Type.Union([TraceResponse, TraceSummaryResponse]),
    400: ErrorBody,
    404: ErrorBody,
  },
};

/** GET /api/v1/traces/:traceId/spans/:spanId: one span in full. */

export const SpanParams = Type.Object({
  traceId: TraceParams.properties.traceId,
  spanId: Type.String({
    minLength: 16,
    maxLength: 16,
    pattern: '^[0-9a-fA-F]{16}$',
    description: '16 hex digits',
  }),
});
export type SpanParams = Static<typeof SpanParams>;

export const SpanRoute = {
  summary: 'One span of a trace in full (the details a summary answer leaves out)',
  params: SpanParams,
  response: { 200: Span, 400: ErrorBody, 404: ErrorBody },
};

/** GET /api/v1/traces: recent traces matching filters, newest or slowest first. */

/** Traces a search returns by default and at most. */
export const DEFAULT_TRACE_SEARCH_LIMIT = 100;
export const MAX_TRACE_SEARCH_LIMIT = 1000;

export const TraceSearchOrder = Type.Union([Type.Literal('newest'), Type.Literal('slowest')]);
export type TraceSearchOrder = Static<typeof TraceSearchOrder>;

export const TracesQuery = Type.Object({
  ...RangeQuery,
  service: Type.Optional(
    Name(
      'Service of any span of the trace (exact; Jaeger semantics: the same span matches every span filter)',
    ),
  ),
  operation: Type.Optional(Name('Span name of that span (exact)')),
  minDurationMs: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: MAX_DURATION_MS,
      description: 'Duration of that span at least, ms',
    }),
  ),
  maxDurationMs: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: MAX_DURATION_MS,
      description: 'Duration of that span at most, ms',
    }),
  ),
  error: Type.Optional(
    Type.Boolean({ description: 'true: only traces with an error span; false: only without' }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_TRACE_SEARCH_LIMIT,
      description: `Traces returned at most (default ${DEFAULT_TRACE_SEARCH_LIMIT})`,
    }),
  ),
  order: Type.Optional(
    Type.Union([Type.Literal('newest'), Type.Literal('slowest')], {
      description: 'newest (default): latest start first; slowest: longest root first',
    }),
  ),
});
export type TracesQuery = Static<typeof TracesQuery>;

export const TraceSummary = Type.Object({
  traceId: Type.String(),
  rootService: Type.String(),
  rootOperation: Type.String({ description: 'The root span name' }),
  startTimeUnixNano: Type.String(),
  startMs: Type.Number({ description: 'Root start, epoch ms' }),
  durationMs: Type.Number({ description: 'Root duration, ms' }),
  spanCount: Type.Integer({ description: 'Spans stored for the trace in the range' }),
  errorCount: Type.Integer({ description: 'Spans with status error' }),
  matchedSpan: Type.Optional(
    Type.Object(
      {
        spanId: Type.String(),
        service: Type.String(),
        operation: Type.String(),
        durationMs: Type.Number(),
      },
      { description: 'The first (earliest) span that matched the span filters (absent without)' },
    ),
  ),
});
export type TraceSummary = Static<typeof TraceSummary>;

export const TracesResponse = Type.Object({
  from: Type.Number(),
  to: Type.Number(),
  order: TraceSearchOrder,
  limit: Type.Integer(),
  traces: Type.Array(TraceSummary),
  more: Type.Boolean({ description: 'More traces matched than the limit' }),
  sampling: Type.Optional(SamplingInfo),
});
export type TracesResponse = Static<typeof TracesResponse>;

export const TracesRoute = {
  summary: 'Recent traces with a span matching the filters (trace search, Jaeger semantics)',
  querystring: TracesQuery,
  response: { 200: TracesResponse, 400: ErrorBody },
};
