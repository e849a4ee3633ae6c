/* eslint-disable @typescript-eslint/no-non-null-assertion -- typed-array loops: every index is in
   bounds by construction (offsets, parents, descriptors). */
import { MAX_WRAPPER_HOPS, SEND_JITTER_NS, UNKNOWN_HOST, UNKNOWN_MODE } from '../conventions';
import { STRUCTURE_CODE, type RequestTrees, type TreeEdge } from './request-trees';
import { ROOT_PARENT_KEY, SPAN_KIND_CODE as K, type SpanColumns } from './span-columns';

/**
 * requestTreesFromSpans over columns: the same calls definition (calls.ts, issue #12), the same
 * trees (request-trees.test compares them), without a span object, a string id or a map per
 * span. Built for the whole-request what-if over 100,000 requests (~3M spans): the spans of one
 * trace at a time in scratch typed arrays, strings only through the few span descriptors.
 */

class Dict {
  readonly values: string[] = [];
  private readonly ix = new Map<string, number>();
  of(v: string): number {
    let i = this.ix.get(v);
    if (i === undefined) {
      i = this.values.length;
      this.values.push(v);
      this.ix.set(v, i);
    }
    return i;
  }
}

const JITTER = Number(SEND_JITTER_NS);

/** One trace's deduplicated spans (local indices) and their links. */
interface Scratch {
  span: Uint32Array; // local -> global span index
  parent: Int32Array; // local parent, -1 when missing or a root
  children: Uint32Array; // child count
  firstAnswer: Int32Array; // earliest SERVER / CONSUMER child (row order), -1 when none
  callNode: Int32Array; // local -> node index of the request, -1 when not a call (root: 0)
  // Per call (in span order), then sorted by start:
  callSpan: Uint32Array;
  callCaller: Int32Array;
  callOrder: Uint32Array;
}

function scratch(n: number): Scratch {
  return {
    span: new Uint32Array(n),
    parent: new Int32Array(n),
    children: new Uint32Array(n),
    firstAnswer: new Int32Array(n),
    callNode: new Int32Array(n),
    callSpan: new Uint32Array(n),
    callCaller: new Int32Array(n),
    callOrder: new Uint32Array(n),
  };
}

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
  return {
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
}

class Builder {
  readonly hosts = new Dict();
  readonly modes = new Dict();
  readonly edgeList: TreeEdge[] = [];
  private readonly edges = new Map<string, number>();
  /** Per descriptor: a client span whose callee is named by its own attributes (no answer). */
  private readonly kind: Uint8Array;

  constructor(private readonly c: SpanColumns) {
    this.kind = Uint8Array.from(c.descriptors, (d) => d.kind);
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
    const ids = new Map<number, number>();
    let n = 0;
    for (let g = c.traceOffsets[t]!; g < c.traceOffsets[t + 1]!; g++) {
      if (ids.has(c.spanKey[g]!)) continue; // a copy: the first one wins
      ids.set(c.spanKey[g]!, n);
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
      const p = pk === ROOT_PARENT_KEY ? -1 : (ids.get(pk) ?? -1);
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
    // Calls by start, ties in span order (a stable sort, as request-trees.ts).
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
    classifyGroups(c, s, out, base, calls + 1, order);
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
    const { service, operation, host, mode } = this.callee(s, i);
    const cd = caller >= 0 ? c.descriptors[c.desc[s.span[caller]!]!]! : undefined;
    out.edge[at] = this.edgeOf(cd?.service ?? '', cd?.name ?? '', service, operation);
    let parent = ownerOf(s, caller);
    if (parent === s.callNode[i]) parent = 0;
    out.parent[at] = base + parent;
    out.startMs[at] = (c.startNs[g]! - rootStart) / 1e6;
    out.durationMs[at] = c.durationNs[g]! / 1e6;
    out.host[at] = this.hosts.of(host);
    out.mode[at] = this.modes.of(mode);
  }

  /** The callee of call span i: names, host and mode (calls.ts clientCall / directCall). */
  private callee(
    s: Scratch,
    i: number,
  ): { service: string; operation: string; host: string; mode: string } {
    const { c } = this;
    const d = c.descriptors[c.desc[s.span[i]!]!]!;
    if (!this.isCallSpan(c.desc[s.span[i]!]!))
      return {
        service: d.service,
        operation: d.name,
        host: d.host || UNKNOWN_HOST,
        mode: d.mode || UNKNOWN_MODE,
      };
    // A message to a named broker is a call to that broker, whichever consumer started first.
    const broker = d.kind === K.producer && (d.peerService || d.serverAddress) !== '';
    const a = broker ? -1 : s.firstAnswer[i]!;
    if (a < 0)
      return {
        service: d.peerService || d.serverAddress,
        operation: d.name,
        host: d.serverAddress || UNKNOWN_HOST,
        mode: UNKNOWN_MODE,
      };
    const ad = c.descriptors[c.desc[s.span[a]!]!]!;
    return {
      service: ad.service,
      operation: ad.name,
      host: ad.host || UNKNOWN_HOST,
      mode: ad.mode || UNKNOWN_MODE,
    };
  }

  private edgeOf(ps: string, po: string, ls: string, lo: string): number {
    const key = `${ps}\u0000${po}\u0000${ls}\u0000${lo}`;
    let e = this.edges.get(key);
    if (e === undefined) {
      e = this.edgeList.length;
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

/** The call (or the root) a span runs inside: nearest ancestor-or-self that is a call. */
function ownerOf(s: Scratch, from: number): number {
  let i = from;
  for (let hops = 0; hops < 10_000 && i >= 0; hops++) {
    const node = s.callNode[i]!;
    if (node >= 0) return node;
    i = s.parent[i]!;
  }
  return 0;
}

/**
 * Structure and concurrency of every group (one parent's calls on one edge), as structure.ts
 * classifyCalls on the calls' [start, end) in ns.
 */
function classifyGroups(
  c: SpanColumns,
  s: Scratch,
  out: Out,
  base: number,
  nodes: number,
  order: readonly number[],
): void {
  const groups = new Map<number, number[]>();
  for (let j = 1; j < nodes; j++) {
    const key = (out.parent[base + j]! - base) * 2 ** 24 + out.edge[base + j]!;
    const g = groups.get(key);
    if (g) g.push(j);
    else groups.set(key, [j]);
  }
  const startOf = (j: number): number => c.startNs[s.span[s.callSpan[order[j - 1]!]!]!]!;
  const durOf = (j: number): number => c.durationNs[s.span[s.callSpan[order[j - 1]!]!]!]!;
  for (const g of groups.values()) {
    const { structure, concurrency } = classify(g.map(startOf), g.map(durOf));
    for (const j of g) {
      out.structure[base + j] = structure;
      out.concurrency[base + j] = concurrency;
    }
  }
}

function classify(
  starts: number[],
  durations: number[],
): { structure: number; concurrency: number } {
  const n = starts.length;
  if (n <= 1) return { structure: STRUCTURE_CODE.single, concurrency: 1 };
  // Sweep: ends before starts at one instant (half-open intervals).
  const events: [number, number][] = [];
  for (let i = 0; i < n; i++) events.push([starts[i]!, 1], [starts[i]! + durations[i]!, -1]);
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 1;
  for (const [, d] of events) {
    open += d;
    if (open > most) most = open;
  }
  if (most === 1) return { structure: STRUCTURE_CODE.sequential, concurrency: 1 };
  if (most === n) return { structure: STRUCTURE_CODE.parallel, concurrency: most };
  let lo = starts[0]!;
  let hi = lo;
  for (const x of starts) {
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  return {
    structure: hi - lo <= JITTER ? STRUCTURE_CODE.parallel : STRUCTURE_CODE.pool,
    concurrency: most,
  };
}
