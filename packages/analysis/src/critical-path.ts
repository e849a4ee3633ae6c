/**
 * The critical path of one trace (DESIGN.md "Definitions: Critical path"): the chain of span
 * segments that determined the root's end. CRISP-style: start at the root's end and walk back;
 * at each point the span in hand is waiting for the child that finished last before that
 * point, so the path descends into that child, and on leaving it (at the child's start) goes
 * on walking back through the span's earlier children. Time where no child runs is the span's
 * own (self) time on the path.
 *
 * Precisely, per span S with effective interval [s, e] (its start clipped to its parent's
 * effective start, so clock skew never yields a negative segment):
 * - a child C is eligible when C.end <= e (a child that ends after its parent, an async child,
 *   did not hold up the parent's end and is not on the path) and C.end > s (a child wholly
 *   before its parent's start cannot have delayed it). A child marked `sync` (a SERVER span
 *   answering its CLIENT parent) cannot outlive its caller, so an overrun is clock skew: its
 *   end is clipped to e and it stays eligible while it starts before e;
 * - walking back from t (first e), the eligible child with the latest end <= t is taken
 *   (touching intervals are sequential: a child ending exactly at t qualifies); S owns
 *   [C.end, t]; the walk goes through C on [max(C.start, s), C.end]; then t = max(C.start, s);
 * - with no further eligible child, S owns [s, t].
 * The pieces are disjoint and cover [root.start, root.end] exactly, so the self times sum to the
 * root's duration. A (span id) seen twice counts once (the longest copy, then the earliest).
 */

/** One span as the critical path needs it: times in ms on one clock (relative is best). */
export interface PathSpan {
  spanId: string;
  /** Empty, or an id not in the trace, for a root. */
  parentSpanId: string;
  startMs: number;
  durationMs: number;
  /**
   * The span answers its parent synchronously (a SERVER span under a CLIENT call): ending after
   * the parent is then clock skew, clipped, not async work. Absent: false.
   */
  sync?: boolean;
}

/** A stretch of the path owned by one span, ms on the input's clock. */
export interface PathPiece {
  spanId: string;
  fromMs: number;
  toMs: number;
}

/** Self time one span holds on the path, ms (every piece of that span summed). */
export interface PathSegment {
  spanId: string;
  selfMs: number;
}

export interface CriticalPath {
  /** The root walked from, or null for an empty trace. */
  rootSpanId: string | null;
  /**
   * Per span the walk passes through (a wrapper wholly covered by its child is on it with 0),
   * ordered by where the span's stretch of the path starts, outer spans first on a tie.
   */
  segments: PathSegment[];
  /** The path's pieces in time order: disjoint, covering the root's interval. */
  pieces: PathPiece[];
}

interface Node {
  span: PathSpan;
  endMs: number;
  /** Eligible children, latest end first. */
  children: Node[];
}

/**
 * Keeps one copy per span id, chosen independently of input order: a root copy (no parent id)
 * first, then the longest. Longest first alone let a longer duplicate of the root's id, filed
 * under one of the root's descendants, replace the root: a cycle and an empty path (issue 25).
 */
function dedupe(spans: readonly PathSpan[]): Map<string, PathSpan> {
  const byId = new Map<string, PathSpan>();
  for (const s of spans) {
    if (!Number.isFinite(s.startMs) || !Number.isFinite(s.durationMs)) continue;
    const seen = byId.get(s.spanId);
    const root = s.parentSpanId === '';
    if (seen && root !== (seen.parentSpanId === '')) {
      if (root) byId.set(s.spanId, s);
      continue;
    }
    if (
      !seen ||
      s.durationMs > seen.durationMs ||
      (s.durationMs === seen.durationMs && s.startMs < seen.startMs) ||
      (s.durationMs === seen.durationMs &&
        s.startMs === seen.startMs &&
        s.parentSpanId < seen.parentSpanId)
    )
      byId.set(s.spanId, s);
  }
  return byId;
}

/**
 * The root: a span with no parent id, else one whose parent is missing, else (every span has a
 * parent in the trace: a cycle) any span, the cycle broken there; longest, then earliest.
 */
function pickRoot(byId: ReadonlyMap<string, PathSpan>): PathSpan | null {
  let best: PathSpan | null = null;
  let bestRank = -1;
  for (const s of byId.values()) {
    const rank = s.parentSpanId === '' ? 2 : byId.has(s.parentSpanId) ? 0 : 1;
    if (
      !best ||
      rank > bestRank ||
      (rank === bestRank &&
        (s.durationMs > best.durationMs ||
          (s.durationMs === best.durationMs &&
            (s.startMs < best.startMs || (s.startMs === best.startMs && s.spanId < best.spanId)))))
    ) {
      best = s;
      bestRank = rank;
    }
  }
  return best;
}

const endOf = (s: PathSpan): number => s.startMs + Math.max(0, s.durationMs);

/** Child lists of every span; a span listed under its parent id (self-parents dropped). */
function childrenById(byId: ReadonlyMap<string, PathSpan>): Map<string, PathSpan[]> {
  const kids = new Map<string, PathSpan[]>();
  for (const s of byId.values()) {
    if (s.parentSpanId === '' || s.parentSpanId === s.spanId) continue;
    const list = kids.get(s.parentSpanId);
    if (list) list.push(s);
    else kids.set(s.parentSpanId, [s]);
  }
  return kids;
}

function node(span: PathSpan): Node {
  return { span, endMs: endOf(span), children: [] };
}

function eligibleChildren(
  parent: Node,
  startMs: number,
  kids: ReadonlyMap<string, PathSpan[]>,
  visited: Set<string>,
): Node[] {
  const out: Node[] = [];
  for (const c of kids.get(parent.span.spanId) ?? []) {
    if (visited.has(c.spanId)) continue;
    const n = node(c);
    // A synchronous answer that overruns its caller is skew: clipped to the caller's end.
    if (c.sync === true && n.endMs > parent.endMs && c.startMs < parent.endMs)
      n.endMs = parent.endMs;
    if (n.endMs <= parent.endMs && n.endMs > startMs) out.push(n);
  }
  // Latest end first; ties broken by span id so input order never matters.
  out.sort((a, b) => b.endMs - a.endMs || (a.span.spanId < b.span.spanId ? -1 : 1));
  return out;
}

interface Frame {
  node: Node;
  startMs: number;
  t: number;
  next: number;
}

/**
 * The critical path of one trace. O(n log n) in spans; iterative, so a 10,000-deep chain does
 * not overflow the stack. Spans with non-finite times are ignored; negative durations count
 * as zero. Spans not under the root (other roots, orphans) are never on the path.
 */
export function criticalPath(spans: readonly PathSpan[]): CriticalPath {
  const byId = dedupe(spans);
  const root = pickRoot(byId);
  if (!root) return { rootSpanId: null, segments: [], pieces: [] };
  const kids = childrenById(byId);
  const visited = new Set<string>([root.spanId]);
  const pieces: PathPiece[] = [];
  const own = (spanId: string, fromMs: number, toMs: number): void => {
    if (toMs > fromMs) pieces.push({ spanId, fromMs, toMs });
  };
  const entered: { spanId: string; fromMs: number }[] = [];
  const open = (n: Node, startMs: number): Frame => {
    entered.push({ spanId: n.span.spanId, fromMs: startMs });
    n.children = eligibleChildren(n, startMs, kids, visited);
    return { node: n, startMs, t: n.endMs, next: 0 };
  };
  const rootNode = node(root);
  const stack: Frame[] = [open(rootNode, root.startMs)];
  while (stack.length > 0) {
    const f = stack[stack.length - 1];
    if (!f) break;
    let child: Node | undefined;
    while (f.next < f.node.children.length) {
      const c = f.node.children[f.next++];
      if (c && c.endMs <= f.t && c.endMs > f.startMs && !visited.has(c.span.spanId)) {
        child = c;
        break;
      }
    }
    if (!child) {
      own(f.node.span.spanId, f.startMs, f.t);
      stack.pop();
      continue;
    }
    visited.add(child.span.spanId);
    own(f.node.span.spanId, child.endMs, f.t);
    const childStart = Math.max(child.span.startMs, f.startMs);
    f.t = childStart;
    stack.push(open(child, childStart));
  }
  pieces.sort((a, b) => a.fromMs - b.fromMs);
  return { rootSpanId: root.spanId, segments: sumPieces(entered, pieces), pieces };
}

function sumPieces(
  entered: readonly { spanId: string; fromMs: number }[],
  pieces: readonly PathPiece[],
): PathSegment[] {
  const self = new Map<string, number>();
  for (const p of pieces) self.set(p.spanId, (self.get(p.spanId) ?? 0) + (p.toMs - p.fromMs));
  // Stable sort: spans entered earlier (outer ones) stay first among equal starts.
  return [...entered]
    .sort((a, b) => a.fromMs - b.fromMs)
    .map(({ spanId }) => ({ spanId, selfMs: self.get(spanId) ?? 0 }));
}

/** A span with the names the aggregate groups by. */
export interface NamedPathSpan extends PathSpan {
  service: string;
  operation: string;
}

/** Critical-path ms per `service\u0000operation` key of one trace. */
export function criticalPathByOperation(spans: readonly NamedPathSpan[]): Map<string, number> {
  const names = new Map<string, string>();
  for (const s of spans) names.set(s.spanId, `${s.service}\u0000${s.operation}`);
  const out = new Map<string, number>();
  for (const seg of criticalPath(spans).segments) {
    const key = names.get(seg.spanId);
    if (key !== undefined) out.set(key, (out.get(key) ?? 0) + seg.selfMs);
  }
  return out;
}

/** `server`, `client`, ... from any stored spelling (`Server`, `SPAN_KIND_SERVER`, `server`). */
function kindName(kind: string): string {
  return kind.toLowerCase().replace(/^span_kind_/, '');
}

/**
 * Marks SERVER spans whose parent is a CLIENT span as `sync` (a synchronous answer: an overrun
 * of its caller is clock skew). O(n). `kind` is the span kind as stored, any spelling.
 */
export function markSyncAnswers<T extends PathSpan & { kind: string }>(spans: readonly T[]): T[] {
  const kindById = new Map<string, string>();
  for (const s of spans) kindById.set(s.spanId, kindName(s.kind));
  return spans.map((s) =>
    kindName(s.kind) === 'server' && kindById.get(s.parentSpanId) === 'client'
      ? { ...s, sync: true }
      : s,
  );
}

/**
 * What a client span's own time on the path is: the caller waiting while its callee's SERVER span
 * was not running (before it started or after it ended): the network, a queue in front of the
 * callee, or a callee starved of CPU. Named so rather than by the client span's own name, which
 * reads as if the caller worked (issue 24).
 */
export function waitingLabel(calleeService: string): string {
  return `waiting on ${calleeService}: network, queueing or a CPU-starved callee`;
}

/**
 * Renames every CLIENT span answered by a SERVER span to `waitingLabel(callee service)`, so the
 * aggregate groups its self time as waiting on that callee. A client span with no SERVER child
 * (an uninstrumented callee) keeps its name: its whole time is the call. O(n).
 */
export function nameClientWaits<T extends NamedPathSpan & { kind: string }>(
  spans: readonly T[],
): T[] {
  const callee = new Map<string, string>();
  for (const s of spans)
    if (kindName(s.kind) === 'server' && !callee.has(s.parentSpanId))
      callee.set(s.parentSpanId, s.service);
  return spans.map((s) => {
    const service = kindName(s.kind) === 'client' ? callee.get(s.spanId) : undefined;
    return service === undefined ? s : { ...s, operation: waitingLabel(service) };
  });
}
