import type { Call } from './calls';
import { SEND_JITTER_NS } from './conventions';

/**
 * The structure of repeated calls (DESIGN.md "Definitions": Edge; issue #12), per request (caller
 * span) and edge (caller operation -> callee operation), in TypeScript: the reference the SQL
 * (apps/api/src/store/edges-sql.ts) is tested against.
 *
 * - Concurrency: the most calls in flight at once, each call in flight on the half-open
 *   [start, end) (touching calls do not overlap, so ms-truncated loops stay sequential; a
 *   zero-length call overlaps nothing); at least 1 when there is a call.
 * - Structure of N calls with concurrency k: `single` (N = 1); `parallel` (k = N, or k >= 2
 *   with every start within SEND_JITTER_NS of the first: sent at once, some ended before the
 *   last was sent); `pool` (1 < k < N otherwise: k workers); `sequential` (k = 1).
 * - Queue wait of a call: its start minus the first call's start (the parent's dispatch: all
 *   calls could have started then; for a pool, the time it waited for a worker).
 */

export type Structure = 'parallel' | 'pool' | 'sequential' | 'single';

/** Structures in the order ties are broken (the first wins). */
export const STRUCTURES: readonly Structure[] = ['parallel', 'pool', 'sequential', 'single'];

interface Interval {
  startNs: bigint;
  endNs: bigint;
}

/**
 * Most intervals in flight at once, half-open [start, end); 1 for a single (even zero-length)
 * interval, 0 for none. Sweep: ends sort before starts at the same instant. O(n log n).
 */
export function concurrencyOf(calls: readonly Interval[]): number {
  if (calls.length === 0) return 0;
  const events: [bigint, number][] = [];
  for (const c of calls) events.push([c.startNs, 1], [c.endNs, -1]);
  events.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
  let open = 0;
  let most = 1;
  for (const [, d] of events) {
    open += d;
    if (open > most) most = open;
  }
  return most;
}

/** Structure of one request's calls on one edge, with their concurrency. O(n log n). */
export function classifyCalls(calls: readonly Interval[]): {
  concurrency: number;
  structure: Structure;
} {
  const concurrency = concurrencyOf(calls);
  const n = calls.length;
  if (n <= 1) return { concurrency, structure: 'single' };
  if (concurrency === 1) return { concurrency, structure: 'sequential' };
  if (concurrency === n) return { concurrency, structure: 'parallel' };
  let lo = calls[0]?.startNs ?? 0n;
  let hi = lo;
  for (const c of calls) {
    if (c.startNs < lo) lo = c.startNs;
    if (c.startNs > hi) hi = c.startNs;
  }
  return { concurrency, structure: hi - lo <= SEND_JITTER_NS ? 'parallel' : 'pool' };
}

/** One request's calls on one edge. */
export interface RequestEdge {
  traceId: string;
  callerSpanId: string;
  callerService: string;
  callerOperation: string;
  leafService: string;
  leafOperation: string;
  /** Sorted by (start, end, span id). */
  calls: Call[];
  concurrency: number;
  structure: Structure;
  firstStartNs: bigint;
  lastEndNs: bigint;
  /** The caller span's duration, ns (0n when the caller span is missing). */
  callerDurationNs: bigint;
}

const cmp = (a: bigint | string, b: bigint | string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Calls grouped per request and edge: (traceId, callerSpanId, leafService, leafOperation), in
 * order of first start, then trace id, caller span id, leaf names. O(calls log calls).
 */
export function groupRequestEdges(calls: readonly Call[]): RequestEdge[] {
  const groups = new Map<string, Call[]>();
  for (const c of calls) {
    const key = JSON.stringify([c.traceId, c.callerSpanId, c.leafService, c.leafOperation]);
    const g = groups.get(key);
    if (g) g.push(c);
    else groups.set(key, [c]);
  }
  const out: RequestEdge[] = [];
  for (const g of groups.values()) {
    g.sort((a, b) => cmp(a.startNs, b.startNs) || cmp(a.endNs, b.endNs) || cmp(a.spanId, b.spanId));
    const first = g[0] as Call;
    const lastEndNs = g.reduce((m, c) => (c.endNs > m ? c.endNs : m), first.endNs);
    out.push({
      traceId: first.traceId,
      callerSpanId: first.callerSpanId,
      callerService: first.callerService,
      callerOperation: first.callerOperation,
      leafService: first.leafService,
      leafOperation: first.leafOperation,
      calls: g,
      ...classifyCalls(g),
      firstStartNs: first.startNs,
      lastEndNs,
      callerDurationNs: first.callerDurationNs,
    });
  }
  return out.sort(
    (a, b) =>
      cmp(a.firstStartNs, b.firstStartNs) ||
      cmp(a.traceId, b.traceId) ||
      cmp(a.callerSpanId, b.callerSpanId) ||
      cmp(a.leafService, b.leafService) ||
      cmp(a.leafOperation, b.leafOperation),
  );
}

/** Queue wait of each call of a request edge, ms: start minus the first call's start. */
export function queueWaitsMs(e: RequestEdge): number[] {
  return e.calls.map((c) => Number(c.startNs - e.firstStartNs) / 1e6);
}

/**
 * Share of the caller's duration spent from the first call's start to the last call's end
 * (null when the caller span is missing or has zero duration).
 */
export function shareOfParent(e: RequestEdge): number | null {
  if (e.callerDurationNs <= 0n) return null;
  return Number(e.lastEndNs - e.firstStartNs) / Number(e.callerDurationNs);
}
