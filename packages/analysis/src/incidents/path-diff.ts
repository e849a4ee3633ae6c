import { addTrace, type CauseSpan, type Component } from './causes';

/**
 * The critical-path difference of an incident (issue 28): per service, the mean critical-path ms
 * of its slow requests against its typical ones, so one can read which service's time grew on
 * the path. The path is cut as in causes.ts: a service's own time (`self`) and the wait of its
 * callers outside its server span (`network`, counted for the callee) are its time; an
 * uninstrumented call counts for the service it names (its peer). Pure; O(S log S) for S spans.
 */

export interface PathDiffRow {
  service: string;
  /** Mean critical-path ms per slow / typical request (a request without it counts 0). */
  slowMs: number;
  typicalMs: number;
  deltaMs: number;
  /** Of deltaMs, the part outside the service's server spans (callers' wait: network, queue). */
  networkDeltaMs: number;
}

/**
 * Rows per service, largest growth first (ties by name); at most `max` (default 6). Empty when
 * either band is empty.
 */
export function criticalPathDifference(
  slow: readonly (readonly CauseSpan[])[],
  typical: readonly (readonly CauseSpan[])[],
  max = 6,
): PathDiffRow[] {
  if (slow.length === 0 || typical.length === 0) return [];
  const comps = new Map<string, Component>();
  for (const t of slow) addTrace(comps, t, 'slow');
  for (const t of typical) addTrace(comps, t, 'typical');
  const rows = new Map<string, PathDiffRow>();
  for (const c of comps.values()) {
    const s = c.slow / slow.length;
    const t = c.typical / typical.length;
    let row = rows.get(c.service);
    if (!row)
      rows.set(
        c.service,
        (row = { service: c.service, slowMs: 0, typicalMs: 0, deltaMs: 0, networkDeltaMs: 0 }),
      );
    row.slowMs += s;
    row.typicalMs += t;
    row.deltaMs += s - t;
    if (c.kind === 'network') row.networkDeltaMs += s - t;
  }
  return [...rows.values()]
    .sort(
      (a, b) =>
        b.deltaMs - a.deltaMs || (a.service < b.service ? -1 : a.service > b.service ? 1 : 0),
    )
    .slice(0, max);
}
