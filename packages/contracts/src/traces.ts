import { Type, type Static } from 'typebox';
import { ErrorBody } from './bounds';

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

export const TraceResponse = Type.Object({
  traceId: Type.String(),
  spans: Type.Array(Span),
  truncated: Type.Boolean({
    description:
      'More spans are stored than returned (at most TAILSCOPE_TRACE_MAX_SPANS, earliest first)',
  }),
  totalSpans: Type.Integer({ description: 'Spans stored for the trace' }),
});
export type TraceResponse = Static<typeof TraceResponse>;

export const TraceRoute = {
  summary: 'Every span of one trace',
  params: TraceParams,
  response: { 200: TraceResponse, 400: ErrorBody, 404: ErrorBody },
};
