/**
 * Request trees built from the store's span columns, the same trees as from span records.
 */

import { MAX_WRAPPER_HOPS, UNKNOWN_HOST, UNKNOWN_MODE } from '../../../conventions';
import type { RequestTrees, TreeEdge } from './trees';
import { classifyGroups } from './groups';
import { requestShapes } from './shapes';
import { Dict, ownerOf, scratch, type Scratch } from './scratch';
import { ROOT_PARENT_KEY, SPAN_KIND_CODE as K, type SpanColumns } from './span-columns';

/**
 * requestTreesFromSpans over columns: the same calls definition (calls.ts, issue #12), the same
 * trees (request-trees.test compares them), without a span object, a string id or a map per
 * span. Built for the whole-request what-if over 100,000 requests (~3M spans): the spans of one
 * trace at a time in scratch typed arrays, strings only through the few span descriptors.
 */

/** Output columns, sized for every span (nodes are at most spans), trimmed at the end. */
interface Out {
  nodeOffsets: number[];
  requestStartMs: number[];
  traceIds: string[];
  parent: Int32Array;
  startMs: Float64Array;
  durationMs: Float64Array;
  edge: Int32Array;
  host: Uint32Array;
  mode: Uint32Array;
  structure: Uint8Array;
  concurrency: Uint32Array;
  nodes: number;
}

/** Request trees from whole traces as columns (SpanColumns). O(spans x depth). */
export function requestTreesFromColumns(c: SpanColumns): RequestTrees {
  const total = c.spanKey.length;
  let longest = 0;
  for (let t = 0; t + 1 < c.traceOffsets.length; t++)
    longest = Math.max(longest, c.traceOffsets[t + 1]! - c.traceOffsets[t]!);
  const s = scratch(longest);
  const b = new Builder(c);
  const out: Out = {
    nodeOffsets: [0],
    requestStartMs: [],
    traceIds: [],
    parent: new Int32Array(total),
    startMs: new Float64Array(total),
    durationMs: new Float64Array(total),
    edge: new Int32Array(total),
    host: new Uint32Array(total),
    mode: new Uint32Array(total),
    structure: new Uint8Array(total),
    concurrency: new Uint32Array(total),
    nodes: 0,
  };
  for (let t = 0; t < c.traceIds.length; t++) b.trace(t, s, out);
  const n = out.nodes;
  const trees: RequestTrees = {
    nodeOffsets: Uint32Array.from(out.nodeOffsets),
    requestStartMs: Float64Array.from(out.requestStartMs),
    traceIds: out.traceIds,
    parent: out.parent.slice(0, n),
    startMs: out.startMs.slice(0, n),
    durationMs: out.durationMs.slice(0, n),
    edge: out.edge.slice(0, n),
    host: out.host.slice(0, n),
    mode: out.mode.slice(0, n),
    structure: out.structure.slice(0, n),
    concurrency: out.concurrency.slice(0, n),
    edges: b.edgeList,
    hosts: b.hosts.values,
    modes: b.modes.values,
  };
  trees.shape = requestShapes(trees);
  return trees;
}

class Builder {
  readonly hosts = new Dict();
  readonly modes = new Dict();
  readonly edgeList: TreeEdge[] = [];
  /** Edges by (caller operation id, callee operation id), as one number. */
  private readonly edges = new Map<number, number>();
  /** Operations (service, name) by id, and per descriptor its own and its unanswered callee's. */
  private readonly ops = new Dict();
  private readonly opNames: [string, string][] = [];
  private readonly ownOp: Int32Array;
  private readonly unansweredOp: Int32Array;
  private readonly kind: Uint8Array;

  constructor(private readonly c: SpanColumns) {
    this.kind = Uint8Array.from(c.descriptors, (d) => d.kind);
    this.ownOp = new Int32Array(c.descriptors.length).fill(-1);
    this.unansweredOp = new Int32Array(c.descriptors.length).fill(-1);
  }

  private op(service: string, name: string): number {
    const id = this.ops.of(`${service}\u0000${name}`);
    if (id === this.opNames.length) this.opNames.push([service, name]);
    return id;
  }

  /** Descriptor d's own operation (a direct call, an answer, a caller). */
  private ownOpOf(d: number): number {
    let v = this.ownOp[d]!;
    if (v < 0) {
      const x = this.c.descriptors[d]!;
      v = this.ownOp[d] = this.op(x.service, x.name);
    }
    return v;
  }

  /** The callee of an unanswered call span: named by peer.service, else server.address. */
  private unansweredOpOf(d: number): number {
    let v = this.unansweredOp[d]!;
    if (v < 0) {
      const x = this.c.descriptors[d]!;
      v = this.unansweredOp[d] = this.op(x.peerService || x.serverAddress, x.name);
    }
    return v;
  }

  private isCallSpan(d: number): boolean {
    const k = this.kind[d]!;
    return k === K.client || k === K.producer || this.c.descriptors[d]!.clientAttrs;
  }

  private isWrapper(s: Scratch, i: number): boolean {
    const d = this.c.desc[s.span[i]!]!;
    return (
      this.kind[d] === K.internal && !this.c.descriptors[d]!.clientAttrs && s.children[i] === 1
    );
  }

  /** Deduplicates the trace's spans and links them; returns the local count and the root. */
  private link(t: number, s: Scratch): { n: number; root: number } {
    const { c } = this;
    const { ids } = s;
    ids.reset();
    let n = 0;
    for (let g = c.traceOffsets[t]!; g < c.traceOffsets[t + 1]!; g++) {
      if (!ids.add(c.spanKey[g]!, n)) continue; // a copy: the first one wins
      s.span[n++] = g;
    }
    let root = -1;
    for (let i = 0; i < n; i++) {
      s.children[i] = 0;
      s.firstAnswer[i] = -1;
      s.callNode[i] = -1;
    }
    for (let i = 0; i < n; i++) {
      const pk = c.parentKey[s.span[i]!]!;
      const p = pk === ROOT_PARENT_KEY ? -1 : ids.get(pk);
      s.parent[i] = p;
      if (pk === ROOT_PARENT_KEY && root < 0) root = i;
      if (p < 0) continue;
      s.children[p]!++;
      const k = this.kind[c.desc[s.span[i]!]!];
      if ((k === K.server || k === K.consumer) && s.firstAnswer[p]! < 0) s.firstAnswer[p] = i;
    }
    return { n, root };
  }

  /** The caller after at most MAX_WRAPPER_HOPS wrappers; -1 when its span is missing. */
  private callerOf(s: Scratch, i: number): number {
    let p = s.parent[i]!;
    for (let wrappers = 0; p >= 0; wrappers++) {
      if (wrappers === MAX_WRAPPER_HOPS || !this.isWrapper(s, p)) return p;
      p = s.parent[p]!;
    }
    return -1;
  }

  /** Whether span i is a call (calls.ts callOf), with its caller. */
  private callOf(s: Scratch, i: number): { call: boolean; caller: number } {
    const { c } = this;
    const g = s.span[i]!;
    if (c.parentKey[g] === ROOT_PARENT_KEY) return { call: false, caller: -1 };
    const d = c.desc[g]!;
    const caller = this.callerOf(s, i);
    if (this.isCallSpan(d)) return { call: true, caller };
    const k = this.kind[d];
    if (k === K.server) {
      const p = s.parent[i]!;
      return { call: !(p >= 0 && this.isCallSpan(c.desc[s.span[p]!]!)), caller };
    }
    if (k === K.internal) {
      const other =
        caller >= 0 &&
        c.descriptors[c.desc[s.span[caller]!]!]!.service !== c.descriptors[d]!.service;
      return { call: !this.isWrapper(s, i) && other, caller };
    }
    return { call: false, caller };
  }

  trace(t: number, s: Scratch, out: Out): void {
    const { c } = this;
    const { n, root } = this.link(t, s);
    if (root < 0) return; // no root span: no request time to report
    let calls = 0;
    for (let i = 0; i < n; i++) {
      const { call, caller } = this.callOf(s, i);
      if (!call) continue;
      s.callSpan[calls] = i;
      s.callCaller[calls] = caller;
      s.callOrder[calls] = calls;
      calls++;
    }
    // Calls by start, ties in span order (a stable sort, as request/trees/trees.ts).
    const order = Array.from(s.callOrder.subarray(0, calls)).sort(
      (a, b) => c.startNs[s.span[s.callSpan[a]!]!]! - c.startNs[s.span[s.callSpan[b]!]!]! || a - b,
    );
    s.callNode[root] = 0;
    order.forEach((k, j) => (s.callNode[s.callSpan[k]!] = j + 1));
    const base = out.nodes;
    const rootG = s.span[root]!;
    const rootStart = c.startNs[rootG]!;
    out.traceIds.push(c.traceIds[t]!);
    out.requestStartMs.push(Number(c.baseNs + BigInt(rootStart)) / 1e6);
    out.parent[base] = -1;
    out.startMs[base] = 0;
    out.durationMs[base] = c.durationNs[rootG]! / 1e6;
    out.edge[base] = -1;
    out.host[base] = this.hosts.of('');
    out.mode[base] = this.modes.of('');
    out.structure[base] = 0;
    out.concurrency[base] = 1;
    order.forEach((k, j) => {
      this.node(s, s.callSpan[k]!, s.callCaller[k]!, rootStart, out, base, base + j + 1);
    });
    out.nodes = base + calls + 1;
    const spanOf = (j: number): number => s.span[s.callSpan[order[j - 1]!]!]!;
    classifyGroups(
      out,
      base,
      calls + 1,
      (j) => c.startNs[spanOf(j)]!,
      (j) => c.durationNs[spanOf(j)]!,
    );
    out.nodeOffsets.push(out.nodes);
  }

  /** The node of call span i (local), written at index `at`. */
  private node(
    s: Scratch,
    i: number,
    caller: number,
    rootStart: number,
    out: Out,
    base: number,
    at: number,
  ): void {
    const { c } = this;
    const g = s.span[i]!;
    const { op, host, mode } = this.callee(s, i);
    out.edge[at] = this.edgeOf(
      caller >= 0 ? this.ownOpOf(c.desc[s.span[caller]!]!) : this.op('', ''),
      op,
    );
    let parent = ownerOf(s, caller);
    if (parent === s.callNode[i]) parent = 0;
    out.parent[at] = base + parent;
    out.startMs[at] = (c.startNs[g]! - rootStart) / 1e6;
    out.durationMs[at] = c.durationNs[g]! / 1e6;
    out.host[at] = this.hosts.of(host);
    out.mode[at] = this.modes.of(mode);
  }

  /** The callee of call span i: operation, host and mode (calls.ts clientCall / directCall). */
  private callee(s: Scratch, i: number): { op: number; host: string; mode: string } {
    const { c } = this;
    const di = c.desc[s.span[i]!]!;
    const d = c.descriptors[di]!;
    if (!this.isCallSpan(di))
      return { op: this.ownOpOf(di), host: d.host || UNKNOWN_HOST, mode: d.mode || UNKNOWN_MODE };
    // A message to a named broker is a call to that broker, whichever consumer started first.
    const broker = d.kind === K.producer && (d.peerService || d.serverAddress) !== '';
    const a = broker ? -1 : s.firstAnswer[i]!;
    if (a < 0)
      return {
        op: this.unansweredOpOf(di),
        host: d.serverAddress || UNKNOWN_HOST,
        mode: UNKNOWN_MODE,
      };
    const ai = c.desc[s.span[a]!]!;
    const ad = c.descriptors[ai]!;
    return { op: this.ownOpOf(ai), host: ad.host || UNKNOWN_HOST, mode: ad.mode || UNKNOWN_MODE };
  }

  private edgeOf(callerOp: number, leafOp: number): number {
    const key = callerOp * 2 ** 26 + leafOp;
    let e = this.edges.get(key);
    if (e === undefined) {
      e = this.edgeList.length;
      const [ps, po] = this.opNames[callerOp]!;
      const [ls, lo] = this.opNames[leafOp]!;
      this.edgeList.push({
        parentService: ps,
        parentOperation: po,
        leafService: ls,
        leafOperation: lo,
      });
      this.edges.set(key, e);
    }
    return e;
  }
}
