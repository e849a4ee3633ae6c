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
  moveShare(comps, c, 1, intoKey, () => selfOf(c));
  comps.delete(key);
}

/**
 * Per caller and callee service (`callKey`), their calls' client and server ms summed per band
 * (addTrace).
 */
export type CallStats = Map<
  string,
  Record<'slow' | 'typical', { calls: number; callMs: number; serverMs: number }>
>;

export const callKey = (caller: string, callee: string): string => `${caller}\u0000${callee}`;

/** Adds one call (its client span's and its answer's ms) to `stats`. */
export function addCall(
  stats: CallStats,
  caller: string,
  callee: string,
  band: 'slow' | 'typical',
  callMs: number,
  serverMs: number,
): void {
  const key = callKey(caller, callee);
  let s = stats.get(key);
  if (!s)
    stats.set(
      key,
      (s = {
        slow: { calls: 0, callMs: 0, serverMs: 0 },
        typical: { calls: 0, callMs: 0, serverMs: 0 },
      }),
    );
  s[band].calls += 1;
  s[band].callMs += callMs;
  s[band].serverMs += serverMs;
}

/** Moves the share `f` of `c`'s time into the component at `intoKey` (made from `make`). */
function moveShare(
  comps: Map<string, Component>,
  c: Component,
  f: number,
  intoKey: string,
  make: () => Component,
): void {
  let into = comps.get(intoKey);
  if (!into) comps.set(intoKey, (into = make()));
  into.slow += c.slow * f;
  into.typical += c.typical * f;
}

/**
 * Queue waits (the caller's own time just before one of its several calls to a service, as in a
 * pool: with one call, it is the caller's own work) count for that service when its calls, as
 * the caller timed them, got slower by at least `foldRatio` per call: slower calls keep a shared
 * pool's workers busy, so callers wait for them (HotROD's route under CPU contention, or behind
 * a congested link: the frontend's requests wait for its 3 route workers). Per call, not per
 * request: with fewer workers, more of a request's calls lie on its critical path and the
 * callee's time per request grows while no call got slower (the pool itself shrank); then the
 * wait stays the caller's. The wait is shared between the callee's own time and the network
 * before it as the per-call rise is: server-span time against the time outside it. Returns the
 * ms folded per component. Mutates `comps`.
 */
export function foldQueueWaits(
  comps: Map<string, Component>,
  mean: Mean,
  foldRatio: number,
  calls: CallStats,
): Map<string, number> {
  const folded = new Map<string, number>();
  const add = (k: string, ms: number) => folded.set(k, (folded.get(k) ?? 0) + ms);
  for (const [key, c] of [...comps]) {
    if (c.queueFor === undefined || c.caller === undefined) continue;
    const s = perCall(calls, c.service, c.queueFor, 'slow');
    const t = perCall(calls, c.service, c.queueFor, 'typical');
    comps.delete(key);
    if (!s || !t || !rose({ s: s.call, t: t.call }, foldRatio)) {
      moveShare(comps, c, 1, c.caller, () => selfOf(c));
      continue;
    }
    const dServer = Math.max(0, s.server - t.server);
    const dOutside = Math.max(0, s.call - s.server - (t.call - t.server));
    const fSelf = dServer + dOutside > 0 ? dServer / (dServer + dOutside) : 1;
    const rise = (o: Component) => mean(o).s - mean(o).t;
    const [selfKey] = [...comps]
      .filter(([, o]) => o.kind === 'self' && o.service === c.queueFor)
      .sort((a, b) => rise(b[1]) - rise(a[1]) || (a[0] < b[0] ? -1 : 1))[0] ?? [undefined];
    const [netKey] = [...comps]
      .filter(([, o]) => o.kind === 'network' && o.service === c.queueFor)
      .sort(
        (a, b) =>
          Number(b[1].from?.service === c.service) - Number(a[1].from?.service === c.service) ||
          rise(b[1]) - rise(a[1]) ||
          (a[0] < b[0] ? -1 : 1),
      )[0] ?? [undefined];
    const m = mean(c);
    const parts: [string | undefined, number, Component['kind']][] = [
      [selfKey, fSelf, 'self'],
      [netKey, 1 - fSelf, 'network'],
    ];
    for (const [k, f, kind] of parts) {
      if (f <= 0) continue;
      // The other part's component takes it when this one has none on any path.
      const intoKey: string = k ?? (kind === 'self' ? netKey : selfKey) ?? c.caller;
      moveShare(comps, c, f, intoKey, () => selfOf(c));
      if (intoKey !== c.caller) add(intoKey, (m.s - m.t) * f);
    }
  }
  return folded;
}

/** Mean client and server ms per call from `caller` to `callee` in a band, if any. */
function perCall(calls: CallStats, caller: string, callee: string, band: 'slow' | 'typical') {
  const x = calls.get(callKey(caller, callee))?.[band];
  return x && x.calls > 0 ? { call: x.callMs / x.calls, server: x.serverMs / x.calls } : undefined;
}

/** How much longer, ms, each call from `caller` to `callee` waited outside its answer. */
function outsideRise(calls: CallStats, caller: string, callee: string): number {
  const s = perCall(calls, caller, callee, 'slow');
  const t = perCall(calls, caller, callee, 'typical');
  return s && t ? s.call - s.server - (t.call - t.server) : 0;
}

/** A fresh own-time component like `c` (its service, host, operation), empty. */
function selfOf(c: Component): Component {
  const { queueFor: _q, caller: _c, from: _f, ...rest } = c;
  return { ...rest, kind: 'self', slow: 0, typical: 0 };
}

/** Most the per-call waits of callees that rose together may differ (max over min). */
const TOGETHER = 3;

/**
 * Waits outside the answers of several callee services that rose together, from one caller
 * whose own time rose too, count for that caller: their common element is the caller's process
 * (starved of CPU, it reads every answer late), not each callee's network. Together: each call's
 * wait rose by about as much (within x3 of each other, per call), as a late reader delays every
 * answer alike; one callee's wait rising far more than the others' is that callee's (its link,
 * or its process starved: HotROD's route under a CPU burner, while the machine's bleed slowed
 * the frontend's other calls a little). A wait that rose on one callee only stays that callee's.
 * Returns the ms folded per caller component. Mutates `comps`.
 */
export function foldSharedWaits(
  comps: Map<string, Component>,
  mean: Mean,
  foldRatio: number,
  calls: CallStats,
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
    const rises = [...new Set(waits.map(([, c]) => c.service))].map((callee) =>
      outsideRise(calls, service, callee),
    );
    if (Math.min(...rises) <= 0 || Math.max(...rises) > TOGETHER * Math.min(...rises)) continue;
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
