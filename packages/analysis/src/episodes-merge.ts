/**
 * One fault, one entry (issue 24): the planted microservices fault was listed as 4 episodes,
 * the slow callee's host series and the edge into it (the same 400 calls, twice), and the same
 * again for its caller. Episodes that are the same calls in the same windows are one entry:
 *
 * - windows of one series that overlap or touch (DESIGN.md: adjacent windows merge) are one
 *   episode: the union of the windows, the sum of the calls (touching windows hold disjoint
 *   calls; overlapping ones cannot be told apart, so the larger count is kept), the worst p99
 *   and ratio, the smallest q;
 * - an edge series and a callee host series of the same service over the same window with the
 *   same calls and p99 measure the same calls (one caller, one host): one entry, the host's,
 *   which also names the edge (parentService, parentOperation, operation).
 *
 * A caller slowed by its callee stays a separate entry: another series, other calls (joining
 * them along call edges is an incident's job). Pure; O(n log n). Worst (largest ratio) first.
 */
export interface MergeableEpisode {
  kind?: 'callee' | 'edge' | undefined;
  service: string;
  host: string;
  parentService?: string | undefined;
  parentOperation?: string | undefined;
  operation?: string | undefined;
  fromMs: number;
  toMs: number;
  p99Ms: number;
  baselineP99Ms: number;
  ratio: number;
  calls: number;
  qValue: number;
}

const seriesKey = (e: MergeableEpisode): string =>
  JSON.stringify([
    e.kind ?? 'callee',
    e.service,
    e.host,
    e.parentService ?? '',
    e.parentOperation ?? '',
    e.operation ?? '',
  ]);

function mergeWindows<T extends MergeableEpisode>(a: T, b: T): T {
  const worst = b.ratio > a.ratio ? b : a;
  const overlap = b.fromMs < a.toMs;
  return {
    ...worst,
    fromMs: Math.min(a.fromMs, b.fromMs),
    toMs: Math.max(a.toMs, b.toMs),
    p99Ms: Math.max(a.p99Ms, b.p99Ms),
    ratio: Math.max(a.ratio, b.ratio),
    calls: overlap ? Math.max(a.calls, b.calls) : a.calls + b.calls,
    qValue: Math.min(a.qValue, b.qValue),
  };
}

/** Episodes of one fault as one entry each; see the module comment. */
export function mergeSameFault<T extends MergeableEpisode>(episodes: readonly T[]): T[] {
  const bySeries = new Map<string, T[]>();
  for (const e of episodes) {
    const k = seriesKey(e);
    const list = bySeries.get(k);
    if (list) list.push(e);
    else bySeries.set(k, [e]);
  }
  const merged: T[] = [];
  for (const list of bySeries.values()) {
    const sorted = [...list].sort((a, b) => a.fromMs - b.fromMs || a.toMs - b.toMs);
    let cur = sorted[0];
    for (const e of sorted.slice(1)) {
      if (cur && e.fromMs <= cur.toMs) cur = mergeWindows(cur, e);
      else {
        if (cur) merged.push(cur);
        cur = e;
      }
    }
    if (cur) merged.push(cur);
  }
  const sameCalls = (a: MergeableEpisode, b: MergeableEpisode): boolean =>
    a.service === b.service &&
    a.fromMs === b.fromMs &&
    a.toMs === b.toMs &&
    a.calls === b.calls &&
    Math.abs(a.p99Ms - b.p99Ms) <= 1e-9 * Math.max(1, Math.abs(a.p99Ms));
  const hosts = merged.filter((e) => e.kind !== 'edge');
  const absorbed = new Set<T>();
  const named = new Map<T, T>();
  for (const edge of merged.filter((e) => e.kind === 'edge')) {
    const host = hosts.find((h) => !named.has(h) && sameCalls(h, edge));
    if (!host) continue;
    absorbed.add(edge);
    named.set(host, {
      ...host,
      parentService: edge.parentService,
      parentOperation: edge.parentOperation,
      operation: edge.operation,
    });
  }
  return merged
    .filter((e) => !absorbed.has(e))
    .map((e) => named.get(e) ?? e)
    .sort((a, b) => b.ratio - a.ratio || a.fromMs - b.fromMs);
}
