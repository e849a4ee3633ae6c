// GET /api/v1/hosts: per-host latency windows (docs/analysis.md), and their conversion to the
// heatmap's host x window matrix.
import { arr, nullable, num, obj, str, withDefault, type Decoder } from './decode';
import type { HostMatrix } from '../charts/heatmap/layout';

export interface HostWindow {
  /** null: the whole fleet in that window. */
  host: string | null;
  startMs: number;
  calls: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface HostEpisode {
  host: string;
  startMs: number;
  endMs: number;
  worstP99Ms: number;
  fleetP99Ms: number;
}

export interface HostWindows {
  windowSeconds: number;
  windows: HostWindow[];
  episodes: HostEpisode[];
}

export const decodeHosts: Decoder<HostWindows> = obj<HostWindows>({
  windowSeconds: num,
  windows: arr(
    obj<HostWindow>({
      host: nullable(str),
      startMs: num,
      calls: num,
      p50Ms: withDefault(num, NaN),
      p99Ms: num,
      maxMs: withDefault(num, NaN),
    }),
  ),
  episodes: withDefault(
    arr(
      obj<HostEpisode>({
        host: str,
        startMs: num,
        endMs: num,
        worstP99Ms: withDefault(num, NaN),
        fleetP99Ms: withDefault(num, NaN),
      }),
    ),
    [],
  ),
});

/**
 * The heatmap matrix of host p99 by window. Fleet rows are left out; windows with no calls
 * for a host are NaN. O(rows).
 */
export function hostMatrix(h: HostWindows): HostMatrix {
  const rows = h.windows.filter((w) => w.host !== null);
  const windowMs = h.windowSeconds * 1000;
  const hosts = [...new Set(rows.map((r) => r.host ?? ''))];
  if (rows.length === 0 || !(windowMs > 0))
    return {
      hosts,
      startMs: 0,
      windowMs: windowMs || 1000,
      windows: 0,
      values: new Float64Array(0),
      calls: new Uint32Array(0),
      statistic: 'p99',
    };
  let start = Infinity;
  let end = -Infinity;
  for (const r of rows) {
    start = Math.min(start, r.startMs);
    end = Math.max(end, r.startMs);
  }
  const windows = Math.round((end - start) / windowMs) + 1;
  const index = new Map(hosts.map((x, i) => [x, i]));
  const values = new Float64Array(hosts.length * windows).fill(NaN);
  const calls = new Uint32Array(hosts.length * windows);
  for (const r of rows) {
    const hi = index.get(r.host ?? '') ?? 0;
    const w = Math.round((r.startMs - start) / windowMs);
    values[hi * windows + w] = r.p99Ms;
    calls[hi * windows + w] = r.calls;
  }
  return { hosts, startMs: start, windowMs, windows, values, calls, statistic: 'p99' };
}
