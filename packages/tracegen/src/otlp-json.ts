/**
 * OTLP/JSON (the protobuf JSON mapping with OTLP's exceptions): lowerCamelCase names, trace and
 * span ids as lower-case hex, int64 times as decimal strings, enums as numbers.
 */
import { encodeTreeJson } from './app-encode';
import { topologyOf } from './app-topology';
import { runAttributes, scope, type Attributes } from './attributes';
import type { SpanBatch } from './batch';
import { groupSpans, SpanKindRef } from './group';
import { hex } from './hex';
import type { Plan } from './plan';
import { unixNanoText } from './time';

interface Context {
  resourceHeads: string[]; // '{"resource":{...},"scopeSpans":[{"scope":{...},"spans":['
  rootName: string;
  leafName: string;
  activityNames: string[];
  rootAttrs: string; // ',"attributes":[...]' or ''
  clientAttrs: string[];
  serverAttrs: string[];
  backgroundAttrs: string[];
}

const contexts = new WeakMap<Plan, Context>();

function attrList(list: Attributes): string {
  return list
    .map(([k, v]) => `{"key":${JSON.stringify(k)},"value":{"stringValue":${JSON.stringify(v)}}}`)
    .join(',');
}

function spanAttrs(list: Attributes): string {
  return list.length ? `,"attributes":[${attrList(list)}]` : '';
}

function context(plan: Plan): Context {
  const cached = contexts.get(plan);
  if (cached) return cached;
  const a = runAttributes(plan);
  const scopeJson = `{"name":${JSON.stringify(scope.name)},"version":${JSON.stringify(scope.version)}}`;
  const ctx: Context = {
    resourceHeads: a.resources.map(
      (r) =>
        `{"resource":{"attributes":[${attrList(r)}]},"scopeSpans":[{"scope":${scopeJson},"spans":[`,
    ),
    rootName: JSON.stringify(plan.spec.root.operation),
    leafName: JSON.stringify(plan.spec.leaf.operation),
    activityNames: plan.activities.map((act) => JSON.stringify(act.name)),
    rootAttrs: spanAttrs(a.root),
    clientAttrs: a.client.map(spanAttrs),
    serverAttrs: a.server.map(spanAttrs),
    backgroundAttrs: a.background.map(spanAttrs),
  };
  contexts.set(plan, ctx);
  return ctx;
}

/** The OTLP/JSON body of a batch (an ExportTraceServiceRequest). */
export function encodeOtlpJson(b: SpanBatch): string {
  const app = b.plan.spec.app;
  if (b.tree && app) return encodeTreeJson(b.tree, topologyOf(app), b.plan.start);
  const ctx = context(b.plan);
  const g = groupSpans(b);
  const groups: string[] = [];
  for (let r = 0; r < g.resourceCount; r++) {
    const from = g.groupOffset[r] ?? 0;
    const to = g.groupOffset[r + 1] ?? 0;
    if (from === to) continue;
    const spans: string[] = [];
    for (let i = from; i < to; i++) spans.push(spanJson(ctx, b, g.kind[i] ?? 0, g.ref[i] ?? 0));
    groups.push(`${ctx.resourceHeads[r] ?? ''}${spans.join(',')}]}]}`);
  }
  return `{"resourceSpans":[${groups.join(',')}]}`;
}

function spanJson(ctx: Context, b: SpanBatch, kind: number, ref: number): string {
  const start = b.plan.start;
  if (kind === SpanKindRef.root)
    return (
      `{"traceId":"${hex(b.traceIds, 16 * ref, 16)}","spanId":"${hex(b.rootSpanIds, 8 * ref, 8)}",` +
      `"flags":257,"name":${ctx.rootName},"kind":2,` +
      `"startTimeUnixNano":"${unixNanoText(start, b.reqStartNs[ref] ?? 0)}",` +
      `"endTimeUnixNano":"${unixNanoText(start, b.reqEndNs[ref] ?? 0)}"${ctx.rootAttrs}}`
    );
  if (kind === SpanKindRef.background) {
    const w = b.windows[ref];
    if (!w) throw new RangeError(`background span ${ref} missing`);
    return (
      `{"traceId":"${hex(w.traceId, 0, 16)}","spanId":"${hex(w.spanId, 0, 8)}",` +
      `"flags":257,"name":${ctx.activityNames[w.activity] ?? '""'},"kind":1,` +
      `"startTimeUnixNano":"${unixNanoText(start, w.startNs)}",` +
      `"endTimeUnixNano":"${unixNanoText(start, w.endNs)}"${ctx.backgroundAttrs[w.activity] ?? ''}}`
    );
  }
  const r = b.callRequest[ref] ?? 0;
  const traceId = hex(b.traceIds, 16 * r, 16);
  if (kind === SpanKindRef.client)
    return (
      `{"traceId":"${traceId}","spanId":"${hex(b.clientSpanIds, 8 * ref, 8)}",` +
      `"parentSpanId":"${hex(b.rootSpanIds, 8 * r, 8)}","flags":257,"name":${ctx.leafName},"kind":3,` +
      `"startTimeUnixNano":"${unixNanoText(start, b.callStartNs[ref] ?? 0)}",` +
      `"endTimeUnixNano":"${unixNanoText(start, b.callEndNs[ref] ?? 0)}"` +
      `${ctx.clientAttrs[b.callHost[ref] ?? 0] ?? ''}}`
    );
  const parent =
    b.plan.spec.shape === 'client-server'
      ? hex(b.clientSpanIds, 8 * ref, 8)
      : hex(b.rootSpanIds, 8 * r, 8);
  return (
    `{"traceId":"${traceId}","spanId":"${hex(b.serverSpanIds, 8 * ref, 8)}",` +
    `"parentSpanId":"${parent}","flags":769,"name":${ctx.leafName},"kind":2,` +
    `"startTimeUnixNano":"${unixNanoText(start, b.serverStartNs[ref] ?? 0)}",` +
    `"endTimeUnixNano":"${unixNanoText(start, b.serverEndNs[ref] ?? 0)}"` +
    `${ctx.serverAttrs[b.callBuild[ref] ?? 0] ?? ''}}`
  );
}
