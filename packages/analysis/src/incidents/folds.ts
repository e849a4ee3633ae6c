/**
 * Folds of the root-cause ranking (causes.ts): components whose extra time is better explained by
 * another component, moved into it before scores are computed. Pure.
 */

/** One component's critical-path ms summed over a band's traces (internal to incidents/). */
export interface Component {
  kind: 'self' | 'network' | 'uninstrumented';
  service: string;
  host: string;
  operation: string;
  slow: number;
  typical: number;
  /** uninstrumented, queue: the component key of the span the call was made from. */
  caller?: string;
  /**
   * A queue wait: the caller's own time that ends where its call to this callee service starts
   * (waiting for a worker of a pool, or a lock, before the call); folded in rankRootCauses.
   */
  queueFor?: string;
  /** network: the caller's service and host (the client span's). */
  from?: { service: string; host: string };
}

type Mean = (c: Component) => { s: number; t: number };

const sumOf = (list: readonly Component[], mean: Mean) => ({
  s: list.reduce((sum, c) => sum + mean(c).s, 0),
  t: list.reduce((sum, c) => sum + mean(c).t, 0),
});
const rose = (m: { s: number; t: number }, ratio: number): boolean =>
  m.s - m.t > 0 && m.s / Math.max(m.t, 1e-3) >= ratio;

/** Moves `c` (at `key`) into the component at `intoKey`, creating it from `c` if absent. */
function moveInto(comps: Map<string, Component>, key: string, c: Component, intoKey: string) {
  let into = comps.get(intoKey);
  if (!into) {
    const { queueFor: _q, caller: _c, from: _f, ...rest } = c;
    comps.set(intoKey, (into = { ...rest, kind: 'self', slow: 0, typical: 0 }));
  }
  into.slow += c.slow;
  into.typical += c.typical;
  comps.delete(key);
}

/**
 * Queue waits (the caller's own time just before one of its several calls to a service, as in a
 * pool: with one call, it is the caller's own work) count for that service
 * when its own time (its spans' self time) rose by at least `foldRatio`: a slow callee keeps a
 * shared pool's workers busy, so callers wait for them (HotROD's route under CPU contention:
 * the frontend's requests wait for its 3 route workers). With the callee's own time steady, the
 * wait stays the caller's (a pool made smaller, a lock held longer in the caller). Returns the
 * ms folded per callee component. Mutates `comps`.
 */
export function foldQueueWaits(
  comps: Map<string, Component>,
  mean: (c: Component) => { s: number; t: number },
  foldRatio: number,
): Map<string, number> {
  const folded = new Map<string, number>();
  for (const [key, c] of [...comps]) {
    if (c.queueFor === undefined || c.caller === undefined) continue;
    const own = [...comps].filter(([, o]) => o.kind === 'self' && o.service === c.queueFor);
    const rise = (o: Component) => mean(o).s - mean(o).t;
    const s = own.reduce((sum, [, o]) => sum + mean(o).s, 0);
    const t = own.reduce((sum, [, o]) => sum + mean(o).t, 0);
    own.sort((a, b) => rise(b[1]) - rise(a[1]) || (a[0] < b[0] ? -1 : 1));
    const top = own[0];
    const toCallee = top !== undefined && s - t > 0 && s / Math.max(t, 1e-3) >= foldRatio;
    const intoKey = toCallee ? top[0] : c.caller;
    if (toCallee) folded.set(intoKey, (folded.get(intoKey) ?? 0) + rise(c));
    moveInto(comps, key, c, intoKey);
  }
  return folded;
}

/**
 * Waits outside the answers of several callee services that rose together, from one caller
 * whose own time rose too, count for that caller: their common element is the caller's process
 * (starved of CPU, it reads every answer late), not each callee's network. A wait that rose on
 * one callee only stays that callee's (its link, its queue). Returns the ms folded per caller
 * component. Mutates `comps`.
 */
export function foldSharedWaits(
  comps: Map<string, Component>,
  mean: Mean,
  foldRatio: number,
): Map<string, number> {
  const folded = new Map<string, number>();
  const byCaller = new Map<string, [string, Component][]>();
  for (const [key, c] of comps) {
    if (c.kind !== 'network' || !c.from || c.caller === undefined || !rose(mean(c), foldRatio))
      continue;
    const k = `${c.from.service}\u0000${c.from.host}`;
    byCaller.set(k, [...(byCaller.get(k) ?? []), [key, c]]);
  }
  for (const waits of byCaller.values()) {
    const first = waits[0]?.[1];
    if (!first?.from || new Set(waits.map(([, c]) => c.service)).size < 2) continue;
    const { service, host } = first.from;
    const own = [...comps.values()].filter(
      (o) => o.kind === 'self' && o.service === service && o.host === host,
    );
    if (!rose(sumOf(own, mean), foldRatio)) continue;
    for (const [key, c] of waits) {
      const intoKey = c.caller as string;
      const m = mean(c);
      folded.set(intoKey, (folded.get(intoKey) ?? 0) + (m.s - m.t));
      moveInto(comps, key, c, intoKey);
    }
  }
  return folded;
}
