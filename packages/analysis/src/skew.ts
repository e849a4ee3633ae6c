import type { Call } from './calls';

/** Calls whose SERVER answers lay outside them, per (clientHost, serverHost); sorted by pair. */
export interface SkewPairCount {
  clientHost: string;
  serverHost: string;
  calls: number;
  maxMs: number;
}

/** Skew pairs of the calls (skewNs > 0), sorted by (clientHost, serverHost). O(calls). */
export function skewPairs(calls: readonly Call[]): SkewPairCount[] {
  const pairs = new Map<string, SkewPairCount>();
  for (const c of calls) {
    if (c.skewNs <= 0n) continue;
    const key = JSON.stringify([c.clientHost, c.host]);
    const ms = Number(c.skewNs) / 1e6;
    const p = pairs.get(key);
    if (p) {
      p.calls++;
      p.maxMs = Math.max(p.maxMs, ms);
    } else pairs.set(key, { clientHost: c.clientHost, serverHost: c.host, calls: 1, maxMs: ms });
  }
  const by = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return [...pairs.values()].sort(
    (a, b) => by(a.clientHost, b.clientHost) || by(a.serverHost, b.serverHost),
  );
}
