/**
 * OTLP protobuf (ExportTraceServiceRequest), hand-rolled: everything constant within a run
 * (resources, names, attributes) is encoded once; a span costs its ids, two fixed64 times and
 * a few copies. Span sizes are computed first so each length prefix is written exactly once.
 *
 * Field numbers (opentelemetry-proto, trace/v1 and common/v1): ExportTraceServiceRequest
 * {resource_spans=1}; ResourceSpans{resource=1, scope_spans=2}; ScopeSpans{scope=1, spans=2};
 * Span{trace_id=1, span_id=2, parent_span_id=4, name=5, kind=6, start_time_unix_nano=7 fixed64,
 * end_time_unix_nano=8 fixed64, attributes=9, flags=16 fixed32}; KeyValue{key=1, value=2};
 * AnyValue{string_value=1}; Resource{attributes=1}; InstrumentationScope{name=1, version=2}.
 */
import { encodeTreeProtobuf } from './app-encode';
import { topologyOf } from './app-topology';
import { runAttributes, scope, type Attributes } from './attributes';
import type { SpanBatch } from './batch';
import { groupSpans, SpanKindRef } from './group';
import type { Plan } from './plan';
import {
  concat,
  lengthDelimited,
  stringAttribute,
  stringField,
  varintSize,
  writeVarint,
} from './proto';
import { writeUnixNano } from './time';

const KIND_INTERNAL = 1;
const KIND_SERVER = 2;
const KIND_CLIENT = 3;
/** W3C sampled, plus OTLP's "is-remote known" bit; 0x200 marks a remote parent. */
const FLAGS_LOCAL = 0x101;
const FLAGS_REMOTE_PARENT = 0x301;
/** Bytes of trace id + span id + flags + kind + two times, with their tags. */
const FIXED = 18 + 10 + 6 + 2 + 18;

interface Context {
  resources: Uint8Array[]; // ResourceSpans.resource field, whole
  scope: Uint8Array; // ScopeSpans.scope field, whole
  rootName: Uint8Array;
  leafName: Uint8Array;
  activityNames: Uint8Array[];
  rootAttrs: Uint8Array;
  clientAttrs: Uint8Array[];
  serverAttrs: Uint8Array[];
  backgroundAttrs: Uint8Array[];
}

const contexts = new WeakMap<Plan, Context>();

function attrs(list: Attributes): Uint8Array {
  return concat(list.map(([k, v]) => stringAttribute(9, k, v)));
}

function context(plan: Plan): Context {
  const cached = contexts.get(plan);
  if (cached) return cached;
  const a = runAttributes(plan);
  const ctx: Context = {
    resources: a.resources.map((r) =>
      lengthDelimited(1, concat(r.map(([k, v]) => stringAttribute(1, k, v)))),
    ),
    scope: lengthDelimited(1, concat([stringField(1, scope.name), stringField(2, scope.version)])),
    rootName: stringField(5, plan.spec.root.operation),
    leafName: stringField(5, plan.spec.leaf.operation),
    activityNames: plan.activities.map((act) => stringField(5, act.name)),
    rootAttrs: attrs(a.root),
    clientAttrs: a.client.map(attrs),
    serverAttrs: a.server.map(attrs),
    backgroundAttrs: a.background.map(attrs),
  };
  contexts.set(plan, ctx);
  return ctx;
}

/** The OTLP/protobuf body of a batch: `ExportTraceServiceRequest` bytes. */
export function encodeOtlpProtobuf(b: SpanBatch): Uint8Array {
  const app = b.plan.spec.app;
  if (b.tree && app) return encodeTreeProtobuf(b.tree, topologyOf(app), b.plan.start);
  const ctx = context(b.plan);
  const g = groupSpans(b);
  const n = g.kind.length;
  const spanLen = new Uint32Array(n);
  const groupLen = new Float64Array(g.resourceCount); // ResourceSpans body
  const scopeLen = new Float64Array(g.resourceCount); // ScopeSpans body
  let total = 0;
  for (let r = 0; r < g.resourceCount; r++) {
    const from = g.groupOffset[r] ?? 0;
    const to = g.groupOffset[r + 1] ?? 0;
    if (from === to) continue;
    let ss = ctx.scope.length;
    for (let i = from; i < to; i++) {
      const len = spanSize(ctx, b, g.kind[i] ?? 0, g.ref[i] ?? 0);
      spanLen[i] = len;
      ss += 1 + varintSize(len) + len;
    }
    scopeLen[r] = ss;
    const rs = (ctx.resources[r]?.length ?? 0) + 1 + varintSize(ss) + ss;
    groupLen[r] = rs;
    total += 1 + varintSize(rs) + rs;
  }

  const out = new Uint8Array(total);
  let pos = 0;
  for (let r = 0; r < g.resourceCount; r++) {
    const from = g.groupOffset[r] ?? 0;
    const to = g.groupOffset[r + 1] ?? 0;
    if (from === to) continue;
    out[pos++] = 0x0a; // resource_spans
    pos = writeVarint(out, pos, groupLen[r] ?? 0);
    const resource = ctx.resources[r] ?? new Uint8Array(0);
    out.set(resource, pos);
    pos += resource.length;
    out[pos++] = 0x12; // scope_spans
    pos = writeVarint(out, pos, scopeLen[r] ?? 0);
    out.set(ctx.scope, pos);
    pos += ctx.scope.length;
    for (let i = from; i < to; i++) {
      out[pos++] = 0x12; // spans
      pos = writeVarint(out, pos, spanLen[i] ?? 0);
      pos = writeSpan(out, pos, ctx, b, g.kind[i] ?? 0, g.ref[i] ?? 0);
    }
  }
  return out;
}

function spanSize(ctx: Context, b: SpanBatch, kind: number, ref: number): number {
  switch (kind) {
    case SpanKindRef.root:
      return FIXED + ctx.rootName.length + ctx.rootAttrs.length;
    case SpanKindRef.client:
      return (
        FIXED + 10 + ctx.leafName.length + (ctx.clientAttrs[b.callHost[ref] ?? 0]?.length ?? 0)
      );
    case SpanKindRef.server:
      return (
        FIXED + 10 + ctx.leafName.length + (ctx.serverAttrs[b.callBuild[ref] ?? 0]?.length ?? 0)
      );
    default: {
      const a = b.windows[ref]?.activity ?? 0;
      return FIXED + (ctx.activityNames[a]?.length ?? 0) + (ctx.backgroundAttrs[a]?.length ?? 0);
    }
  }
}

function copy(out: Uint8Array, pos: number, src: Uint8Array, from: number, len: number): number {
  for (let i = 0; i < len; i++) out[pos + i] = src[from + i] ?? 0;
  return pos + len;
}

/** One span's fields, resolved from the batch columns (reused: no allocation per span). */
interface SpanFields {
  traceIds: Uint8Array;
  traceAt: number;
  spanIds: Uint8Array;
  spanAt: number;
  parentIds: Uint8Array | null;
  parentAt: number;
  name: Uint8Array;
  kind: number;
  startNs: number;
  endNs: number;
  attributes: Uint8Array;
  flags: number;
}
const empty = new Uint8Array(0);
const f: SpanFields = {
  traceIds: empty,
  traceAt: 0,
  spanIds: empty,
  spanAt: 0,
  parentIds: null,
  parentAt: 0,
  name: empty,
  kind: KIND_SERVER,
  startNs: 0,
  endNs: 0,
  attributes: empty,
  flags: FLAGS_LOCAL,
};

function resolveRequestSpan(ctx: Context, b: SpanBatch, ref: number): void {
  f.traceIds = b.traceIds;
  f.traceAt = 16 * ref;
  f.spanIds = b.rootSpanIds;
  f.spanAt = 8 * ref;
  f.parentIds = null;
  f.name = ctx.rootName;
  f.kind = KIND_SERVER;
  f.startNs = b.reqStartNs[ref] ?? 0;
  f.endNs = b.reqEndNs[ref] ?? 0;
  f.attributes = ctx.rootAttrs;
  f.flags = FLAGS_LOCAL;
}

function resolveBackgroundSpan(ctx: Context, b: SpanBatch, ref: number): void {
  const w = b.windows[ref];
  if (!w) throw new RangeError(`background span ${ref} missing`);
  f.traceIds = w.traceId;
  f.traceAt = 0;
  f.spanIds = w.spanId;
  f.spanAt = 0;
  f.parentIds = null;
  f.name = ctx.activityNames[w.activity] ?? ctx.rootName;
  f.kind = KIND_INTERNAL;
  f.startNs = w.startNs;
  f.endNs = w.endNs;
  f.attributes = ctx.backgroundAttrs[w.activity] ?? ctx.rootAttrs;
  f.flags = FLAGS_LOCAL;
}

function resolveCallSpan(ctx: Context, b: SpanBatch, ref: number, client: boolean): void {
  const r = b.callRequest[ref] ?? 0;
  f.traceIds = b.traceIds;
  f.traceAt = 16 * r;
  f.spanAt = 8 * ref;
  f.name = ctx.leafName;
  if (client) {
    f.spanIds = b.clientSpanIds;
    f.parentIds = b.rootSpanIds;
    f.parentAt = 8 * r;
    f.kind = KIND_CLIENT;
    f.startNs = b.callStartNs[ref] ?? 0;
    f.endNs = b.callEndNs[ref] ?? 0;
    f.attributes = ctx.clientAttrs[b.callHost[ref] ?? 0] ?? ctx.rootAttrs;
    f.flags = FLAGS_LOCAL;
    return;
  }
  const underClient = b.plan.spec.shape === 'client-server';
  f.spanIds = b.serverSpanIds;
  f.parentIds = underClient ? b.clientSpanIds : b.rootSpanIds;
  f.parentAt = underClient ? 8 * ref : 8 * r;
  f.kind = KIND_SERVER;
  f.startNs = b.serverStartNs[ref] ?? 0;
  f.endNs = b.serverEndNs[ref] ?? 0;
  f.attributes = ctx.serverAttrs[b.callBuild[ref] ?? 0] ?? ctx.rootAttrs;
  f.flags = FLAGS_REMOTE_PARENT;
}

function writeSpan(
  out: Uint8Array,
  pos: number,
  ctx: Context,
  b: SpanBatch,
  kind: number,
  ref: number,
): number {
  if (kind === SpanKindRef.root) resolveRequestSpan(ctx, b, ref);
  else if (kind === SpanKindRef.background) resolveBackgroundSpan(ctx, b, ref);
  else resolveCallSpan(ctx, b, ref, kind === SpanKindRef.client);
  out[pos++] = 0x0a; // trace_id
  out[pos++] = 16;
  pos = copy(out, pos, f.traceIds, f.traceAt, 16);
  out[pos++] = 0x12; // span_id
  out[pos++] = 8;
  pos = copy(out, pos, f.spanIds, f.spanAt, 8);
  if (f.parentIds) {
    out[pos++] = 0x22; // parent_span_id
    out[pos++] = 8;
    pos = copy(out, pos, f.parentIds, f.parentAt, 8);
  }
  out.set(f.name, pos); // name
  pos += f.name.length;
  out[pos++] = 0x30; // kind
  out[pos++] = f.kind;
  out[pos++] = 0x39; // start_time_unix_nano, fixed64
  writeUnixNano(out, pos, b.plan.start, f.startNs);
  pos += 8;
  out[pos++] = 0x41; // end_time_unix_nano, fixed64
  writeUnixNano(out, pos, b.plan.start, f.endNs);
  pos += 8;
  out.set(f.attributes, pos); // attributes
  pos += f.attributes.length;
  out[pos++] = 0x85; // flags = 16, fixed32: tag 133 as a two-byte varint
  out[pos++] = 0x01;
  out[pos++] = f.flags & 0xff;
  out[pos++] = (f.flags >>> 8) & 0xff;
  out[pos++] = 0;
  out[pos++] = 0;
  return pos;
}
