import { Type, type Static } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../server/context';
import { countTraceSpans, selectTrace, type SpanRow } from '../store';
import { selectTypedAttributes } from '../store/typed-attributes';
import { badRequest, notFound } from '../server/errors';
import { toApiSpan } from './span-json';

const AttrValue = Type.Unknown();
// Not Type.Record(Type.String(), ...): its pattern `^.*$` does not match a key holding a
// newline or carriage return (`.` stops at line ends), so the response serializer dropped
// such attributes. additionalProperties matches every key.
const Attributes = Type.Object({}, { additionalProperties: AttrValue });

export const SpanSchema = Type.Object({
  traceId: Type.String(),
  spanId: Type.String(),
  parentSpanId: Type.String(),
  traceState: Type.String(),
  name: Type.String(),
  kind: Type.String({
    description: 'unspecified | internal | server | client | producer | consumer',
  }),
  service: Type.String(),
  startTimeUnixNano: Type.String(),
  durationNs: Type.Number(),
  attributes: Attributes,
  resource: Attributes,
  scope: Type.Object({ name: Type.String(), version: Type.String() }),
  events: Type.Array(
    Type.Object({ name: Type.String(), timeUnixNano: Type.String(), attributes: Attributes }),
  ),
  links: Type.Array(
    Type.Object({
      traceId: Type.String(),
      spanId: Type.String(),
      traceState: Type.String(),
      attributes: Attributes,
    }),
  ),
  status: Type.Object({
    code: Type.Union([Type.Literal('unset'), Type.Literal('ok'), Type.Literal('error')]),
    message: Type.String(),
  }),
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
export type ApiSpan = Static<typeof SpanSchema>;

const TRACE_ID = /^[0-9a-f]{32}$/;

/** The typed attribute values of a trace's spans, keyed `spanId@startNs`. */
async function typedBySpan(
  ctx: ApiContext,
  traceId: string,
  rows: SpanRow[],
): Promise<Map<string, Record<string, string>>> {
  let min = BigInt(rows[0]?.StartNs ?? '0');
  let max = min;
  for (const r of rows) {
    const t = BigInt(r.StartNs);
    if (t < min) min = t;
    if (t > max) max = t;
  }
  const typed = await selectTypedAttributes(ctx.store, traceId, {
    minStartNs: min.toString(),
    maxStartNs: max.toString(),
  });
  return new Map(typed.map((t) => [`${t.SpanId}@${t.StartNs}`, t.Attributes]));
}

export function traceRoutes(app: FastifyInstance, ctx: ApiContext): void {
  app.get(
    '/api/v1/traces/:traceId',
    {
      schema: {
        summary: 'Every span of one trace',
        params: Type.Object({ traceId: Type.String({ description: '32 lowercase hex digits' }) }),
        response: {
          200: Type.Object({
            traceId: Type.String(),
            spans: Type.Array(SpanSchema),
            truncated: Type.Boolean({
              description:
                'More spans are stored than returned (at most TAILSCOPE_TRACE_MAX_SPANS, earliest first)',
            }),
            totalSpans: Type.Integer({ description: 'Spans stored for the trace' }),
          }),
        },
      },
    },
    async (req) => {
      const traceId = (req.params as { traceId: string }).traceId.toLowerCase();
      if (!TRACE_ID.test(traceId))
        throw badRequest(`traceId must be 32 hex digits, got ${JSON.stringify(traceId)}`);
      const { maxTraceSpans, maxSpanAttributes } = ctx.store.budget;
      // One span more than the limit tells whether the trace was cut, without a count.
      const rows = await selectTrace(ctx.store, traceId, {
        maxSpans: maxTraceSpans + 1,
        maxAttributes: maxSpanAttributes,
      });
      if (rows.length === 0) throw notFound(`no trace ${traceId}`);
      const truncated = rows.length > maxTraceSpans;
      if (truncated) rows.length = maxTraceSpans;
      const typed = await typedBySpan(ctx, traceId, rows);
      return {
        traceId,
        spans: rows.map((r) => toApiSpan(r, typed.get(`${r.SpanId}@${r.StartNs}`))),
        truncated,
        totalSpans: truncated ? await countTraceSpans(ctx.store, traceId) : rows.length,
      };
    },
  );
}
