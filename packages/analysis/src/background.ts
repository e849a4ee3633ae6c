import { NO_BACKGROUND } from './conventions';

/**
 * The background dimension of calls (DESIGN.md conventions): a call is "during <kind>" when a
 * background-activity span on its host has a half-open interval [start, end) that intersects
 * the call's [start, end); with several, the alphabetically first kind; else 'none'.
 * Times are any consistent unit (the store passes nanoseconds relative to a base, exact in
 * float64 below 2^53).
 */

export interface BackgroundWindow {
  host: string;
  start: number;
  end: number;
  kind: string;
}

/**
 * Background value of every call. `host[i]` indexes `hosts`; the call is [start[i],
 * start[i] + duration[i]). Returns a dictionary with 'none' first. O(W log W + calls * (log W +
 * overlapping windows)) with W windows: per host the windows are sorted by start with a running
 * maximum of their ends, so the scan back from the last window starting before a call's end
 * stops as soon as no earlier window can still be open.
 */
export function backgroundOfCalls(
  host: Uint32Array,
  hosts: readonly string[],
  start: Float64Array,
  duration: Float64Array,
  windows: readonly BackgroundWindow[],
): { index: Uint32Array; values: string[] } {
  const values = [NO_BACKGROUND];
  const ids = new Map<string, number>([[NO_BACKGROUND, 0]]);
  const byHost = new Map<string, BackgroundWindow[]>();
  for (const w of windows) {
    const list = byHost.get(w.host);
    if (list) list.push(w);
    else byHost.set(w.host, [w]);
  }
  const perHost = hosts.map((h) => {
    const list = (byHost.get(h) ?? []).sort((a, b) => a.start - b.start);
    const starts = Float64Array.from(list, (w) => w.start);
    const maxEnd = new Float64Array(list.length);
    let m = -Infinity;
    list.forEach((w, i) => (maxEnd[i] = m = Math.max(m, w.end)));
    return { list, starts, maxEnd };
  });
  const index = new Uint32Array(host.length);
  for (let i = 0; i < host.length; i++) {
    const ph = perHost[host[i] as number];
    if (!ph || ph.list.length === 0) continue;
    const a = start[i] as number;
    const b = a + (duration[i] as number);
    let best: string | null = null;
    // Last window with start < b; walk back while an earlier window can still be open at a.
    for (let j = lastBelow(ph.starts, b); j >= 0 && (ph.maxEnd[j] as number) > a; j--) {
      const w = ph.list[j] as BackgroundWindow;
      if (w.end > a && (best === null || w.kind < best)) best = w.kind;
    }
    if (best === null) continue;
    let id = ids.get(best);
    if (id === undefined) {
      id = values.length;
      values.push(best);
      ids.set(best, id);
    }
    index[i] = id;
  }
  return { index, values };
}

/** Index of the last element < x in ascending `a`, or -1. O(log n). */
function lastBelow(a: Float64Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}
