import {
  DEFAULT_TRACE_SEARCH_LIMIT,
  TraceRoute,
  TracesRoute,
  type CriticalPathSegment,
  type TraceSummary,
} from '@tailscope/contracts';
import { criticalPath, markSyncAnswers } from '@tailscope/analysis';
import type { ApiContext } from '../server/context';
import { countTraceSpans, selectTrace, type SpanRow } from '../store';
import { selectTypedAttributes } from '../store/typed-attributes';
import { badRequest, notFound } from '../server/errors';
import type { RouteApp } from '../server/route-app';
import { toApiSpan } from './span-json';
import { clampRangeCovering, parseRange } from './fanouts';
import { rangeSampling } from './sampling';
import { searchTraces, type TraceSearchRow } from '../store/traces-search';

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

/** The critical path over the returned rows, times made relative to the earliest start. */
function pathOf(rows: readonly SpanRow[]): CriticalPathSegment[] {
  let min = BigInt(rows[0]?.StartNs ?? '0');
  for (const r of rows) if (BigInt(r.StartNs) < min) min = BigInt(r.StartNs);
  return criticalPath(
    markSyncAnswers(
      rows.map((r) => ({
        spanId: r.SpanId,
        parentSpanId: r.ParentSpanId,
        kind: r.SpanKind,
        startMs: Number(BigInt(r.StartNs) - min) / 1e6,
        durationMs: Number(r.Duration) / 1e6,
      })),
    ),
  ).segments;
}

const msToNs = (ms: number): bigint => BigInt(Math.round(ms * 1e6));

function toSummary(r: TraceSearchRow): TraceSummary {
  return {
    traceId: r.traceId,
    rootService: r.rootService,
    rootOperation: r.rootOperation,
    startTimeUnixNano: r.startNs,
    startMs: Number(BigInt(r.startNs) / 1000n) / 1000,
    durationMs: Number(r.durationNs) / 1e6,
    spanCount: r.spanCount,
    errorCount: r.errorCount,
    ...(r.matchedSpan
      ? {
          matchedSpan: {
            spanId: r.matchedSpan.spanId,
            service: r.matchedSpan.service,
            operation: r.matchedSpan.operation,
            durationMs: Number(r.matchedSpan.durationNs) / 1e6,
          },
        }
      : {}),
  };
}

export function traceRoutes(app: RouteApp, ctx: ApiContext): void {
  app.get('/api/v1/traces', { schema: TracesRoute }, async (req) => {
    const q = req.query;
    const { range, whole } = await clampRangeCovering(ctx.store, parseRange(q, Date.now()));
    if (
      q.minDurationMs !== undefined &&
      q.maxDurationMs !== undefined &&
      q.minDurationMs > q.maxDurationMs
    )
      throw badRequest(
        `minDurationMs (${q.minDurationMs}) must not exceed maxDurationMs (${q.maxDurationMs})`,
      );
    const limit = q.limit ?? DEFAULT_TRACE_SEARCH_LIMIT;
    const order = q.order ?? 'newest';
    // The sampling block runs beside the search: two reads of the range on two cores.
    const [rows, sampling] = await Promise.all([
      range.fromNs < range.toNs
        ? searchTraces(ctx.store, {
            fromNs: range.fromNs,
            toNs: range.toNs,
            service: q.service === '' ? undefined : q.service,
            operation: q.operation === '' ? undefined : q.operation,
            minDurationNs: q.minDurationMs === undefined ? undefined : msToNs(q.minDurationMs),
            maxDurationNs: q.maxDurationMs === undefined ? undefined : msToNs(q.maxDurationMs),
            error: q.error,
            limit,
            order,
          })
        : Promise.resolve([]),
      // A list of traces: nothing is counted, so nothing is weighted.
      rangeSampling(ctx.store, range, false, whole),
    ]);
    return {
      from: range.fromMs,
      to: range.toMs,
      order,
      limit,
      traces: rows.slice(0, limit).map(toSummary),
      more: rows.length > limit,
      sampling,
    };
  });

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
      criticalPath: pathOf(rows),
      spans: rows.map((r) => toApiSpan(r, typed.get(`${r.SpanId}@${r.StartNs}`))),
      truncated,
      totalSpans: truncated ? await countTraceSpans(ctx.store, traceId) : rows.length,
    };
  });
}
