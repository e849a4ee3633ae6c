import type { TraceSpan } from '../api/contracts';

/** A span with times relative to the trace's first span, in ms, and its depth in the tree. */
export interface TimedSpan {
  span: TraceSpan;
  depth: number;
  startMs: number;
  durationMs: number;
  endMs: number;
  children: TimedSpan[];
}

export interface TraceTree {
  roots: TimedSpan[];
  byId: Map<string, TimedSpan>;
  /** Start of the earliest span, ns since the epoch (bigint keeps every digit). */
  t0Ns: bigint;
  totalMs: number;
}

function ns(s: string): bigint {
  return /^\d+$/.test(s) ? BigInt(s) : 0n;
}

/**
 * Builds the span tree of one trace. Spans whose parent is missing (not yet arrived, or
 * sampled out) become roots, as Jaeger shows them. Children are ordered by start time.
 */
/**
 * The tree of `spans`, built once per answer: the trace page's loader finds the root it selects
 * by default (to ask for its details at once) and the page renders from the same tree.
 */
export function traceTreeOf(spans: readonly TraceSpan[]): TraceTree {
  let tree = built.get(spans);
  if (!tree) {
    tree = buildTraceTree(spans);
    built.set(spans, tree);
  }
  return tree;
}
const built = new WeakMap<readonly TraceSpan[], TraceTree>();

export function buildTraceTree(spans: readonly TraceSpan[]): TraceTree {
  let t0 = -1n;
  for (const s of spans) {
    const t = ns(s.startTimeUnixNano);
    if (t0 < 0n || t < t0) t0 = t;
  }
  if (t0 < 0n) t0 = 0n;
  const byId = new Map<string, TimedSpan>();
  for (const s of spans) {
    const startMs = Number(ns(s.startTimeUnixNano) - t0) / 1e6;
    const durationMs = s.durationNs / 1e6;
    byId.set(s.spanId, {
      span: s,
      depth: 0,
      startMs,
      durationMs,
      endMs: startMs + durationMs,
      children: [],
    });
  }
  const roots: TimedSpan[] = [];
  for (const t of byId.values()) {
    const parent = t.span.parentSpanId === '' ? undefined : byId.get(t.span.parentSpanId);
    if (parent && parent !== t) parent.children.push(t);
    else roots.push(t);
  }
  const byStart = (a: TimedSpan, b: TimedSpan) => a.startMs - b.startMs;
  roots.sort(byStart);
  let totalMs = 0;
  // Iterative DFS: a deep trace must not overflow the stack.
  const stack = roots.map((r) => ({ node: r, depth: 0 }));
  while (stack.length > 0) {
    const top = stack.pop();
    if (!top) break;
    top.node.depth = top.depth;
    totalMs = Math.max(totalMs, top.node.endMs);
    top.node.children.sort(byStart);
    for (const c of top.node.children) stack.push({ node: c, depth: top.depth + 1 });
  }
  return { roots, byId, t0Ns: t0, totalMs };
}

/** Depth-first order, parents before children, siblings by start time. */
export function flattenTree(roots: readonly TimedSpan[]): TimedSpan[] {
  const out: TimedSpan[] = [];
  const stack = [...roots].reverse();
  while (stack.length > 0) {
    const n = stack.pop();
    if (!n) break;
    out.push(n);
    for (let i = n.children.length - 1; i >= 0; i--) {
      const c = n.children[i];
      if (c) stack.push(c);
    }
  }
  return out;
}
