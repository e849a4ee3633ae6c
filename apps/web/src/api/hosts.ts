// GET /api/v1/hosts: per-host latency windows and episodes (docs/analysis.md), and their
// conversion to the heatmap's host x window matrix.
import type * as C from '@tailscope/contracts';
import { arr, num, numOr, obj, str, withDefault, type Decoder } from './decode';
import type { HostMatrix } from '@tailscope/charts';

type HostWindow = C.HostWindow;
type HostRow = C.HostSeries;
/** An episode without its window and call counts (the dashboard does not show them). */
type HostEpisode = Omit<C.HostEpisode, 'windows' | 'calls'>;
export type HostWindows = Pick<C.HostsResponse, 'windowSeconds'> & {
  hosts: HostRow[];
  episodes: HostEpisode[];
};

const window = obj<HostWindow>({
  startMs: num,
  calls: num,
  p50Ms: numOr(NaN),
  p99Ms: numOr(NaN),
  maxMs: numOr(NaN),
});

export const decodeHosts: Decoder<HostWindows> = obj<HostWindows>({
  windowSeconds: num,
  hosts: arr(
    obj<HostRow>({
      host: str,
      mode: withDefault(str, 'unknown'),
      calls: num,
      windows: arr(window),
    }),
  ),
  episodes: withDefault(
    arr(
      obj<HostEpisode>({
        host: str,
        startMs: num,
        endMs: num,
        worstP99Ms: numOr(NaN),
        fleetP99Ms: numOr(NaN),
      }),
    ),
    [],
  ),
});

/**
 * The heatmap matrix of host p99 by window, from the first to the last window any host had.
 * Windows where a host had no calls are NaN. O(hosts x windows).
 */
export function hostMatrix(h: HostWindows): HostMatrix {
  const windowMs = h.windowSeconds * 1000;
  let start = Infinity;
  let end = -Infinity;
  for (const row of h.hosts)
    for (const w of row.windows) {
      start = Math.min(start, w.startMs);
      end = Math.max(end, w.startMs);
    }
  const hosts = h.hosts.map((r) => r.host);
  if (!(windowMs > 0) || !Number.isFinite(start))
    return {
      hosts,
      startMs: 0,
      windowMs: windowMs > 0 ? windowMs : 1000,
      windows: 0,
      values: new Float64Array(0),
      calls: new Uint32Array(0),
      statistic: 'p99',
    };
  const windows = Math.round((end - start) / windowMs) + 1;
  const values = new Float64Array(hosts.length * windows).fill(NaN);
  const calls = new Uint32Array(hosts.length * windows);
  h.hosts.forEach((row, i) => {
    for (const w of row.windows) {
      const k = i * windows + Math.round((w.startMs - start) / windowMs);
      values[k] = w.p99Ms;
      calls[k] = w.calls;
    }
  });
  return { hosts, startMs: start, windowMs, windows, values, calls, statistic: 'p99' };
}

/** A window length giving about `target` windows over the range (shared with the server's warm answers). */
export { autoWindowSeconds } from '@tailscope/contracts';
