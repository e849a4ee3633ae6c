/**
 * Request trees: whole requests' calls as columns (parent, times, edge, host, structure), from
 * span records.
 */

import { dedupeSpans, extractCalls, type Call } from '../../../calls';
import { classifyCalls, type Structure } from '../../../structure';
import type { SpanRecord } from '../../../span-record';
import { Dict } from './scratch';
import { requestShapes } from './shapes';

/** Structure codes of the `structure` column. */
export const STRUCTURE_CODE: Readonly<Record<Structure, number>> = {
  single: 0,
  parallel: 1,
  pool: 2,
  sequential: 3,
};

/** An edge: caller operation -> callee operation (DESIGN.md "Definitions"). */
export interface TreeEdge {
  parentService: string;
  parentOperation: string;
  leafService: string;
  leafOperation: string;
}

/**
 * Recorded requests as trees of calls, columnar: the what-if replay's input for the whole
 * request. Node 0 of a request is its root span; every other node is a call (issue #12's
 * definition) whose parent is the call (or root) inside which its caller span ran. Parents
 * precede their children. A group is one parent's calls on one edge; its structure and
 * concurrency are those of the edges reference (structure.ts).
 */
export interface RequestTrees {
  /** Request r owns nodes [nodeOffsets[r], nodeOffsets[r + 1]); length requests + 1. */
  nodeOffsets: Uint32Array;
  /** Epoch ms of each request's root start. */
  requestStartMs: Float64Array;
  traceIds: string[];
  /** Per node: the parent node (global index), -1 for a root. */
  parent: Int32Array;
  /** Per node: ms from its request's root start. */
  startMs: Float64Array;
  durationMs: Float64Array;
  /** Per node: edge index (into `edges`), -1 for a root. */
  edge: Int32Array;
  host: Uint32Array;
  mode: Uint32Array;
  /** Per node: structure code (STRUCTURE_CODE) and concurrency of its group. */
  structure: Uint8Array;
  concurrency: Uint32Array;
  edges: TreeEdge[];
  hosts: string[];
  modes: string[];
  /**
   * Per request: its shape's number (requestShapes), when the builder numbered them. Optional:
   * trees without it are planned the same, comparing nodes instead. Trees derived by changing
   * parents, edges, structures or concurrencies must recompute it or leave it out.
   */
  shape?: Int32Array;
}

interface Node {
  start: number;
  duration: number;
  edge: number;
  host: number;
  mode: number;
  parent: number; // position within the request
  structure: number;
  concurrency: number;
}

/** The call (or the root) each span runs inside: nearest ancestor-or-self that is a call span. */
function ownerOf(
  spanId: string,
  byId: Map<string, SpanRecord>,
  callIndex: Map<string, number>,
): number {
  let id = spanId;
  for (let hops = 0; hops < 10_000; hops++) {
    const c = callIndex.get(id);
    if (c !== undefined) return c;
    const s = byId.get(id);
    if (!s || s.parentSpanId === '') return 0;
    id = s.parentSpanId;
  }
  return 0;
}

/**
 * Request trees from stored spans (one or more whole traces), with the calls of issue #12
 * (extractCalls). A trace without a root span is left out (no request time to report).
 * O(spans x depth).
 */
export function requestTreesFromSpans(spans: readonly SpanRecord[]): RequestTrees {
  const { spans: unique } = dedupeSpans(spans);
  const byTrace = new Map<string, SpanRecord[]>();
  for (const s of unique) {
    const list = byTrace.get(s.traceId);
    if (list) list.push(s);
    else byTrace.set(s.traceId, [s]);
  }
  const edges = new Map<string, number>();
  const edgeList: TreeEdge[] = [];
  const hosts = new Dict();
  const modes = new Dict();
  const requests: { traceId: string; startNs: bigint; nodes: Node[] }[] = [];
  const traces = [...byTrace.keys()].sort();
  for (const traceId of traces) {
    const trace = byTrace.get(traceId)!;
    const root = trace.find((s) => s.parentSpanId === '');
    if (!root) continue;
    const calls = extractCalls(trace).sort((a, b) =>
      a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0,
    );
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    // Node 0: the root; node i + 1: calls[i] (sorted by start, so a parent call precedes the
    // calls it makes, as their caller spans run inside it).
    const callIndex = new Map<string, number>(calls.map((c, i) => [c.spanId, i + 1]));
    callIndex.set(root.spanId, 0);
    const nodes: Node[] = [
      {
        start: 0,
        duration: Number(root.durationNs) / 1e6,
        edge: -1,
        host: hosts.of(''),
        mode: modes.of(''),
        parent: -1,
        structure: 0,
        concurrency: 1,
      },
    ];
    for (const c of calls)
      nodes.push(callNode(c, root.startNs, byId, callIndex, edges, edgeList, hosts, modes));
    classifyGroups(nodes, calls);
    requests.push({ traceId, startNs: root.startNs, nodes });
  }
  return pack(requests, edgeList, hosts.values, modes.values);
}

function callNode(
  c: Call,
  rootStartNs: bigint,
  byId: Map<string, SpanRecord>,
  callIndex: Map<string, number>,
  edges: Map<string, number>,
  edgeList: TreeEdge[],
  hosts: Dict,
  modes: Dict,
): Node {
  let parent = ownerOf(c.callerSpanId, byId, callIndex);
  if (parent === callIndex.get(c.spanId)) parent = 0;
  const key = JSON.stringify([c.callerService, c.callerOperation, c.leafService, c.leafOperation]);
  let e = edges.get(key);
  if (e === undefined) {
    e = edgeList.length;
    edgeList.push({
      parentService: c.callerService,
      parentOperation: c.callerOperation,
      leafService: c.leafService,
      leafOperation: c.leafOperation,
    });
    edges.set(key, e);
  }
  return {
    start: Number(c.startNs - rootStartNs) / 1e6,
    duration: Number(c.endNs - c.startNs) / 1e6,
    edge: e,
    host: hosts.of(c.host),
    mode: modes.of(c.mode),
    parent,
    structure: 0,
    concurrency: 1,
  };
}

/** Structure and concurrency of every group (one parent's calls on one edge). */
function classifyGroups(nodes: Node[], calls: Call[]): void {
  const groups = new Map<string, number[]>();
  for (let i = 1; i < nodes.length; i++) {
    const key = `${nodes[i]!.parent}/${nodes[i]!.edge}`;
    const g = groups.get(key);
    if (g) g.push(i);
    else groups.set(key, [i]);
  }
  for (const g of groups.values()) {
    const { structure, concurrency } = classifyCalls(g.map((i) => calls[i - 1]!));
    for (const i of g) {
      nodes[i]!.structure = STRUCTURE_CODE[structure];
      nodes[i]!.concurrency = concurrency;
    }
  }
}

/** Builds the columns from per-request node lists. O(nodes). */
export function pack(
  requests: readonly { traceId: string; startNs: bigint; nodes: readonly Node[] }[],
  edges: TreeEdge[],
  hosts: string[],
  modes: string[],
): RequestTrees {
  const n = requests.reduce((s, r) => s + r.nodes.length, 0);
  const t: RequestTrees = {
    nodeOffsets: new Uint32Array(requests.length + 1),
    requestStartMs: Float64Array.from(requests, (r) => Number(r.startNs) / 1e6),
    traceIds: requests.map((r) => r.traceId),
    parent: new Int32Array(n),
    startMs: new Float64Array(n),
    durationMs: new Float64Array(n),
    edge: new Int32Array(n),
    host: new Uint32Array(n),
    mode: new Uint32Array(n),
    structure: new Uint8Array(n),
    concurrency: new Uint32Array(n),
    edges,
    hosts,
    modes,
  };
  let k = 0;
  requests.forEach((r, ri) => {
    const base = k;
    for (const node of r.nodes) {
      t.parent[k] = node.parent < 0 ? -1 : base + node.parent;
      t.startMs[k] = node.start;
      t.durationMs[k] = node.duration;
      t.edge[k] = node.edge;
      t.host[k] = node.host;
      t.mode[k] = node.mode;
      t.structure[k] = node.structure;
      t.concurrency[k] = node.concurrency;
      k++;
    }
    t.nodeOffsets[ri + 1] = k;
  });
  t.shape = requestShapes(t);
  return t;
}

export type { Node as RequestTreeNode };
