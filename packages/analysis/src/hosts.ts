import { quantileInclusive } from './quantile';
import type { LeafCalls } from './types';

/**
 * Host episodes: per-host call latency over fixed time windows, so a host that was bad for
 * three minutes shows as such instead of being diluted over the hour. A call belongs to the
 * window containing its start: floor((fanoutStartMs + startMs) / windowMs), windows aligned to
 * the epoch. Latency = durationMs (as the caller sees it).
 */

/** One (host, window) cell; `host` null for the whole fleet in that window. Times in ms. */
export interface WindowStats {
  host: string | null;
  /** Window start, epoch ms (a multiple of the window length). */
  startMs: number;
  calls: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * Per (host, window) and per window for the fleet: calls and type-7 p50/p99/max of durationMs.
 * Sorted by host (fleet rows, host null, last), then window. `windowMs` > 0.
 * O(calls log calls).
 */
export function hostWindowStats(calls: LeafCalls, windowMs: number): WindowStats[] {
  if (!(windowMs > 0)) throw new RangeError(`windowMs must be > 0, got ${windowMs}`);
  const cells = new Map<string, { host: string | null; w: number; d: number[] }>();
  const off = calls.fanoutOffsets;
  for (let f = 0; f + 1 < off.length; f++) {
    const s0 = calls.fanoutStartMs[f] as number;
    for (let i = off[f] as number; i < (off[f + 1] as number); i++) {
      const w = Math.floor((s0 + (calls.startMs[i] as number)) / windowMs);
      const host = calls.hosts[calls.host[i] as number] ?? '';
      const d = calls.durationMs[i] as number;
      for (const h of [host, null]) {
        const key = `${h ?? '\u0000fleet'}\u0001${w}`;
        let c = cells.get(key);
        if (!c) cells.set(key, (c = { host: h, w, d: [] }));
        c.d.push(d);
      }
    }
  }
  const out: WindowStats[] = [];
  for (const c of cells.values()) {
    const s = Float64Array.from(c.d).sort();
    out.push({
      host: c.host,
      startMs: c.w * windowMs,
      calls: s.length,
      p50Ms: quantileInclusive(s, 0.5),
      p99Ms: quantileInclusive(s, 0.99),
      maxMs: s[s.length - 1] as number,
    });
  }
  return out.sort(compareWindows);
}

/** Order of WindowStats: by host (null last), then window start. */
export function compareWindows(a: WindowStats, b: WindowStats): number {
  if (a.host !== b.host) {
    if (a.host === null) return 1;
    if (b.host === null) return -1;
    return a.host < b.host ? -1 : 1;
  }
  return a.startMs - b.startMs;
}

export interface HostEpisode {
  host: string;
  startMs: number;
  /** End of the last bad window (exclusive), epoch ms. */
  endMs: number;
  windows: number;
  calls: number;
  /** The worst p99 of the host's windows in the episode, ms. */
  worstP99Ms: number;
  /** The fleet reference (median of the hosts' p99s) in that worst window, ms. */
  fleetP99Ms: number;
}

export interface EpisodeOptions {
  windowMs: number;
  /** A window is bad when the host's p99 exceeds factor x the median host p99 (default 2). */
  factor?: number;
  /** Hosts with fewer calls than this in a window are not judged there (default 10). */
  minCalls?: number;
}

/**
 * Episodes: maximal runs of consecutive windows in which a host's p99 was above `factor` times
 * the median of the p99s of the hosts judged in that window (a robust fleet reference that
 * one sick host cannot drag up). Input: host rows of `hostWindowStats` (fleet rows ignored).
 * Sorted by host, then start. O(cells log cells).
 */
export function hostEpisodes(cells: readonly WindowStats[], opts: EpisodeOptions): HostEpisode[] {
  const factor = opts.factor ?? 2;
  const minCalls = opts.minCalls ?? 10;
  const judged = cells.filter((c) => c.host !== null && c.calls >= minCalls);
  const p99sByWindow = new Map<number, number[]>();
  for (const c of judged) {
    const list = p99sByWindow.get(c.startMs) ?? [];
    list.push(c.p99Ms);
    p99sByWindow.set(c.startMs, list);
  }
  const fleet = new Map<number, number>();
  for (const [w, list] of p99sByWindow)
    fleet.set(w, quantileInclusive(Float64Array.from(list).sort(), 0.5));
  const bad = judged
    .filter((c) => c.p99Ms > factor * (fleet.get(c.startMs) ?? Infinity))
    .sort(compareWindows);
  const out: HostEpisode[] = [];
  let cur: HostEpisode | null = null;
  for (const c of bad) {
    const host = c.host ?? '';
    const ref = fleet.get(c.startMs) ?? NaN;
    if (cur && cur.host === host && cur.endMs === c.startMs) {
      cur.endMs = c.startMs + opts.windowMs;
      cur.windows++;
      cur.calls += c.calls;
      if (c.p99Ms > cur.worstP99Ms) {
        cur.worstP99Ms = c.p99Ms;
        cur.fleetP99Ms = ref;
      }
      continue;
    }
    cur = {
      host,
      startMs: c.startMs,
      endMs: c.startMs + opts.windowMs,
      windows: 1,
      calls: c.calls,
      worstP99Ms: c.p99Ms,
      fleetP99Ms: ref,
    };
    out.push(cur);
  }
  return out;
}
