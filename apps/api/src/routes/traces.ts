import { TraceRoute } from '@tailscope/contracts';
import type { ApiContext } from '../server/context';
import { countTraceSpans, selectTrace, type SpanRow } from '../store';
import { selectTypedAttributes } from '../store/typed-attributes';
import { badRequest, notFound } from '../server/errors';
import type { RouteApp } from '../server/route-app';
import { toApiSpan } from './span-json';

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

export function traceRoutes(app: RouteApp, ctx: ApiContext): void {
  app.get('/api/v1/traces/:traceId', { schema: TraceRoute }, async (req) => {
    const traceId = req.params.traceId.toLowerCase();
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
  });
}
