import {
  API_PATHS,
  DEFAULT_TRACE_SEARCH_LIMIT,
  SpanRoute,
  TraceResponse,
  TraceRoute,
  TraceSummaryResponse,
  TracesRoute,
  type CriticalPathSegment,
  type TraceSummary,
} from '@tailscope/contracts';
import { criticalPath, markSyncAnswers } from '@tailscope/analysis';
import type { ApiContext } from './context';
import { countTraceSpans, selectTrace, type SpanRow } from '../store';
import { selectTypedAttributes } from '../store/traces/typed-attributes';
import { badRequest, notFound, type RouteApp, parseRange } from '../foundation';
import { toApiSpan, toSpanSummary } from './span-json';
import { selectSpan, selectTraceSummary } from '../store/traces/summary';
import { clampRangeCovering } from './clamp-range';
import { rangeSampling } from './sampling';
import { searchTraces, type TraceSearchRow } from '../store/traces/search';
import { traceScope } from '../store/traces/spans';
import { answerCacheOf, questionKey } from '../cache';

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;
/** The two answers' schemas as Fastify compiles them (it caches each by reference). */
const FULL_SCHEMA = TraceResponse as unknown as Record<string, unknown>;
const SUMMARY_SCHEMA = TraceSummaryResponse as unknown as Record<string, unknown>;
/** What Fastify sends JSON as (a custom serializer leaves the type to the route). */
const JSON_TYPE = 'application/json; charset=utf-8';

/** The typed attribute values of a trace's spans, keyed `spanId@startNs`. */
async function typedBySpan(
  ctx: ApiContext,
  traceId: string,
  rows: readonly SpanRow[],
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
function pathOf(
  rows: readonly Pick<SpanRow, 'SpanId' | 'ParentSpanId' | 'SpanKind' | 'StartNs' | 'Duration'>[],
): CriticalPathSegment[] {
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
  app.get(API_PATHS.traces.path, { schema: TracesRoute }, async (req) => {
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

  app.get(API_PATHS.trace.path, { schema: TraceRoute }, async (req, reply) => {
    const traceId = checkedTraceId(req.params.traceId);
    // The 200 schema is a union of the two answers; each is written with its own compiled
    // serializer, so the default answer is byte for byte what it was before `fields` existed.
    // Set once the answer is there: an error (404) keeps the error serializer.
    if (req.query.fields === 'summary') {
      const answer = await summaryAnswer(ctx, traceId);
      reply.type(JSON_TYPE).serializer(reply.compileSerializationSchema(SUMMARY_SCHEMA, '200'));
      return answer;
    }
    const answer = await fullAnswer(ctx, traceId);
    reply.type(JSON_TYPE).serializer(reply.compileSerializationSchema(FULL_SCHEMA, '200'));
    return answer;
  });

  app.get(API_PATHS.span.path, { schema: SpanRoute }, async (req) => {
    const traceId = checkedTraceId(req.params.traceId);
    const spanId = req.params.spanId.toLowerCase();
    if (!SPAN_ID.test(spanId))
      throw badRequest(`spanId must be 16 hex digits, got ${JSON.stringify(spanId)}`);
    const row = await selectSpan(ctx.store, traceId, spanId, ctx.store.budget.maxSpanAttributes);
    if (!row) throw notFound(`no span ${spanId} in trace ${traceId}`);
    const typed = await typedBySpan(ctx, traceId, [row]);
    return toApiSpan(row, typed.get(`${row.SpanId}@${row.StartNs}`));
  });
}

function checkedTraceId(raw: string): string {
  const traceId = raw.toLowerCase();
  if (!TRACE_ID.test(traceId))
    throw badRequest(`traceId must be 32 hex digits, got ${JSON.stringify(traceId)}`);
  return traceId;
}

async function fullAnswer(ctx: ApiContext, traceId: string): Promise<TraceResponse> {
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
}

/**
 * The same spans, path and counts as the full answer, each span without its details, and the
 * first root span in full (the trace page shows it first). Kept in the answer cache per trace
 * while the trace's stored spans are unchanged (traceScope's version): a trace opened again,
 * or by a second person, is not read and walked again (10,000 spans: 0.3-0.5 s of the server).
 */
async function summaryAnswer(ctx: ApiContext, traceId: string): Promise<TraceSummaryResponse> {
  const { maxTraceSpans, maxSpanAttributes } = ctx.store.budget;
  const scope = await traceScope(ctx.store, traceId);
  if (!scope) throw notFound(`no trace ${traceId}`);
  const compute = async (): Promise<TraceSummaryResponse> => {
    const rows = await selectTraceSummary(ctx.store, traceId, maxTraceSpans + 1, scope.where);
    if (rows.length === 0) throw notFound(`no trace ${traceId}`);
    const truncated = rows.length > maxTraceSpans;
    if (truncated) rows.length = maxTraceSpans;
    const root = firstRoot(rows);
    const [totalSpans, rootRow] = await Promise.all([
      // Counted already for the version when the answer cache is on.
      truncated ? scope.spans() : rows.length,
      root
        ? selectSpan(ctx.store, traceId, root.SpanId, maxSpanAttributes, scope.where)
        : Promise.resolve(null),
    ]);
    const typed = rootRow ? await typedBySpan(ctx, traceId, [rootRow]) : null;
    return {
      traceId,
      detail: 'summary',
      criticalPath: pathOf(rows),
      spans: rows.map(toSpanSummary),
      truncated,
      totalSpans,
      ...(rootRow
        ? { rootSpan: toApiSpan(rootRow, typed?.get(`${rootRow.SpanId}@${rootRow.StartNs}`)) }
        : {}),
    };
  };
  const cache = answerCacheOf(ctx.store);
  if (!cache) return compute();
  return cache.answer(
    questionKey('trace-summary', { traceId, maxTraceSpans, maxSpanAttributes }),
    await scope.version(),
    compute,
    // About what the answer weighs as JSON (measured: 2.3 MB for 10,000 spans), without
    // writing it out to count.
    (a) => 600 + a.spans.length * 240,
  );
}

/**
 * The first root of rows in start order: a span without a parent among the rows (none named,
 * one not stored, or itself), as the trace page's tree takes its first root.
 */
function firstRoot<T extends { SpanId: string; ParentSpanId: string }>(
  rows: readonly T[],
): T | undefined {
  const ids = new Set(rows.map((r) => r.SpanId));
  return rows.find(
    (r) => r.ParentSpanId === '' || r.ParentSpanId === r.SpanId || !ids.has(r.ParentSpanId),
  );
}
