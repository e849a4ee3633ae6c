/**
 * OTLP protobuf and JSON for tree spans (the `microservices` application). Templates and
 * resources are encoded once per run; a span costs its ids, times and a copy of its template.
 */
import { scope, type Attributes } from './attributes';
import type { AppTopology } from './app-topology';
import { hex } from './hex';
import {
  concat,
  lengthDelimited,
  stringAttribute,
  stringField,
  varintSize,
  writeVarint,
} from './proto';
import { unixNanoText, writeUnixNano, type StartTime } from './time';
import type { TreeSpans } from './tree';

/** W3C sampled plus the is-remote bits: 0x300 when the parent is in another process. */
const FLAGS_LOCAL = 0x101;
const FLAGS_REMOTE_PARENT = 0x301;
const KIND_SERVER = 2;
const KIND_CONSUMER = 5;
const remoteParent = (kind: number) => kind === KIND_SERVER || kind === KIND_CONSUMER;

interface ProtoContext {
  resources: Uint8Array[];
  scope: Uint8Array;
  /** name field + kind field, then attributes. */
  head: Uint8Array[];
  attrs: Uint8Array[];
  flags: number[];
}

const protoContexts = new WeakMap<AppTopology, ProtoContext>();

function protoContext(topo: AppTopology): ProtoContext {
  const cached = protoContexts.get(topo);
  if (cached) return cached;
  const attrs = (list: Attributes) => concat(list.map(([k, v]) => stringAttribute(9, k, v)));
  const ctx: ProtoContext = {
    resources: topo.resources.map((r) =>
      lengthDelimited(1, concat(r.map(([k, v]) => stringAttribute(1, k, v)))),
    ),
    scope: lengthDelimited(1, concat([stringField(1, scope.name), stringField(2, scope.version)])),
    head: topo.templates.map((t) => concat([stringField(5, t.name), Uint8Array.of(0x30, t.kind)])),
    attrs: topo.templates.map((t) => attrs(t.attributes)),
    flags: topo.templates.map((t) => (remoteParent(t.kind) ? FLAGS_REMOTE_PARENT : FLAGS_LOCAL)),
  };
  protoContexts.set(topo, ctx);
  return ctx;
}

function spanSize(ctx: ProtoContext, t: TreeSpans, i: number): number {
  const tpl = t.template[i] ?? 0;
  const parent = (t.parent[i] ?? -1) >= 0 ? 10 : 0;
  // trace id 18, span id 10, two fixed64 times 18, flags 6.
  return 52 + parent + (ctx.head[tpl]?.length ?? 0) + (ctx.attrs[tpl]?.length ?? 0);
}

function copy(out: Uint8Array, pos: number, src: Uint8Array, from: number, len: number): number {
  out.set(src.subarray(from, from + len), pos);
  return pos + len;
}

function writeSpan(
  out: Uint8Array,
  pos: number,
  ctx: ProtoContext,
  t: TreeSpans,
  i: number,
  start: StartTime,
): number {
  const tpl = t.template[i] ?? 0;
  out[pos++] = 0x0a; // trace_id
  out[pos++] = 16;
  pos = copy(out, pos, t.traceIds, 16 * (t.request[i] ?? 0), 16);
  out[pos++] = 0x12; // span_id
  out[pos++] = 8;
  pos = copy(out, pos, t.spanIds, 8 * i, 8);
  const parent = t.parent[i] ?? -1;
  if (parent >= 0) {
    out[pos++] = 0x22; // parent_span_id
    out[pos++] = 8;
    pos = copy(out, pos, t.spanIds, 8 * parent, 8);
  }
  const head = ctx.head[tpl] ?? new Uint8Array(0);
  out.set(head, pos); // name, kind
  pos += head.length;
  out[pos++] = 0x39; // start_time_unix_nano
  writeUnixNano(out, pos, start, t.startNs[i] ?? 0);
  pos += 8;
  out[pos++] = 0x41; // end_time_unix_nano
  writeUnixNano(out, pos, start, t.endNs[i] ?? 0);
  pos += 8;
  const attrs = ctx.attrs[tpl] ?? new Uint8Array(0);
  out.set(attrs, pos);
  pos += attrs.length;
  const flags = ctx.flags[tpl] ?? FLAGS_LOCAL;
  out[pos++] = 0x85; // flags = 16, fixed32
  out[pos++] = 0x01;
  out[pos++] = flags & 0xff;
  out[pos++] = (flags >>> 8) & 0xff;
  out[pos++] = 0;
  out[pos++] = 0;
  return pos;
}

/** ExportTraceServiceRequest bytes of a batch's tree spans. */
export function encodeTreeProtobuf(t: TreeSpans, topo: AppTopology, start: StartTime): Uint8Array {
  const ctx = protoContext(topo);
  const n = topo.resources.length;
  const { groupOffset, order } = t.grouped(n);
  const spanLen = new Uint32Array(order.length);
  const scopeLen = new Float64Array(n);
  const groupLen = new Float64Array(n);
  let total = 0;
  for (let g = 0; g < n; g++) {
    const from = groupOffset[g] ?? 0;
    const to = groupOffset[g + 1] ?? 0;
    if (from === to) continue;
    let ss = ctx.scope.length;
    for (let k = from; k < to; k++) {
      const len = spanSize(ctx, t, order[k] ?? 0);
      spanLen[k] = len;
      ss += 1 + varintSize(len) + len;
    }
    scopeLen[g] = ss;
    const rs = (ctx.resources[g]?.length ?? 0) + 1 + varintSize(ss) + ss;
    groupLen[g] = rs;
    total += 1 + varintSize(rs) + rs;
  }
  const out = new Uint8Array(total);
  let pos = 0;
  for (let g = 0; g < n; g++) {
    const from = groupOffset[g] ?? 0;
    const to = groupOffset[g + 1] ?? 0;
    if (from === to) continue;
    out[pos++] = 0x0a; // resource_spans
    pos = writeVarint(out, pos, groupLen[g] ?? 0);
    const resource = ctx.resources[g] ?? new Uint8Array(0);
    out.set(resource, pos);
    pos += resource.length;
    out[pos++] = 0x12; // scope_spans
    pos = writeVarint(out, pos, scopeLen[g] ?? 0);
    out.set(ctx.scope, pos);
    pos += ctx.scope.length;
    for (let k = from; k < to; k++) {
      out[pos++] = 0x12; // spans
      pos = writeVarint(out, pos, spanLen[k] ?? 0);
      pos = writeSpan(out, pos, ctx, t, order[k] ?? 0, start);
    }
  }
  return out;
}

function jsonAttrs(list: Attributes): string {
  return list
    .map(([k, v]) => `{"key":${JSON.stringify(k)},"value":{"stringValue":${JSON.stringify(v)}}}`)
    .join(',');
}

/** OTLP/JSON of a batch's tree spans. */
export function encodeTreeJson(t: TreeSpans, topo: AppTopology, start: StartTime): string {
  const n = topo.resources.length;
  const { groupOffset, order } = t.grouped(n);
  const scopeJson = `{"name":${JSON.stringify(scope.name)},"version":${JSON.stringify(scope.version)}}`;
  const groups: string[] = [];
  for (let g = 0; g < n; g++) {
    const from = groupOffset[g] ?? 0;
    const to = groupOffset[g + 1] ?? 0;
    if (from === to) continue;
    const spans: string[] = [];
    for (let k = from; k < to; k++) {
      const i = order[k] ?? 0;
      const tpl = topo.templates[t.template[i] ?? 0];
      if (!tpl) throw new RangeError(`span template ${t.template[i]} missing`);
      const parent = t.parent[i] ?? -1;
      spans.push(
        `{"traceId":"${hex(t.traceIds, 16 * (t.request[i] ?? 0), 16)}","spanId":"${hex(t.spanIds, 8 * i, 8)}",` +
          (parent >= 0 ? `"parentSpanId":"${hex(t.spanIds, 8 * parent, 8)}",` : '') +
          `"flags":${remoteParent(tpl.kind) ? FLAGS_REMOTE_PARENT : FLAGS_LOCAL},` +
          `"name":${JSON.stringify(tpl.name)},"kind":${tpl.kind},` +
          `"startTimeUnixNano":"${unixNanoText(start, t.startNs[i] ?? 0)}",` +
          `"endTimeUnixNano":"${unixNanoText(start, t.endNs[i] ?? 0)}"` +
          (tpl.attributes.length ? `,"attributes":[${jsonAttrs(tpl.attributes)}]` : '') +
          '}',
      );
    }
    groups.push(
      `{"resource":{"attributes":[${jsonAttrs(topo.resources[g] ?? [])}]},"scopeSpans":[{"scope":${scopeJson},"spans":[${spans.join(',')}]}]}`,
    );
  }
  return `{"resourceSpans":[${groups.join(',')}]}`;
}
