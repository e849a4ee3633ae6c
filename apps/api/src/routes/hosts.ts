import {
  API_PATHS,
  HostsRoute,
  MAX_HOST_WINDOWS as MAX_WINDOWS,
  type HostWindow,
} from '@tailscope/contracts';
import {
  UNKNOWN_MODE,
  hostEpisodes,
  quantileInclusive,
  type WindowStats,
} from '@tailscope/analysis';
import type { ApiContext } from './context';
import { badRequest, type RouteApp, optionalNumber, parseRange, requireText } from '../foundation';
import { selectHostWindows } from '../store/fanouts';
import { clampRange } from './clamp-range';
import { rangeSampling } from './sampling';
import { cachedAnswer } from '../cache';
import { measureHosts } from '../store/metrics/modes';

/** Hosts whose spans carry no sharing mode take the mode their metrics measure (docs/metrics.md). */
async function withMeasuredHostModes<H extends { host: string; mode: string }>(
  store: ApiContext['store'],
  hosts: H[],
  range: { fromNs: bigint; toNs: bigint },
): Promise<H[]> {
  const unknown = hosts.filter((h) => h.mode === UNKNOWN_MODE).map((h) => h.host);
  if (unknown.length === 0) return hosts;
  const { modes } = await measureHosts(store, { ...range, hosts: unknown, baseNs: 0n });
  return hosts.map((h) => {
    const m = h.mode === UNKNOWN_MODE ? modes.get(h.host) : undefined;
    return m === undefined ? h : { ...h, mode: m };
  });
}

export function hostRoutes(app: RouteApp, ctx: ApiContext): void {
  app.get(API_PATHS.hosts.path, { schema: HostsRoute }, async (req) => {
    const q = req.query;
    const leafService = requireText('leafService', q.leafService);
    const leafOperation = requireText('leafOperation', q.leafOperation);
    const range = await clampRange(ctx.store, parseRange(q, Date.now()));
    const windowSeconds = optionalNumber('windowSeconds', q.windowSeconds, 0.001, 86_400) ?? 60;
    // Windows over the stored part of the range: a wide range over little data is fine.
    if (Number(range.toNs - range.fromNs) / (windowSeconds * 1e9) > MAX_WINDOWS) {
      throw badRequest(
        `windowSeconds ${windowSeconds} gives more than ${MAX_WINDOWS} windows over the stored data in the range; use a longer window`,
      );
    }
    const factor = optionalNumber('factor', q.factor, 1, 1000) ?? 2;
    const minCalls = optionalNumber('minCalls', q.minCalls, 1, 1e9) ?? 10;
    const windowMs = windowSeconds * 1000;
    const params = { leafService, leafOperation, windowSeconds, factor, minCalls };
    return cachedAnswer(
      ctx.store,
      'hosts',
      { ...params, asked: [range.fromMs, range.toMs] },
      range,
      async () => {
        // Weighted by each call's fan-out adjusted count when some span in range carries one.
        const sampling = await rangeSampling(ctx.store, range);
        const rows = await selectHostWindows(
          ctx.store,
          { fromNs: range.fromNs, toNs: range.toNs, leafService, leafOperation },
          windowMs,
          { weighted: sampling.weighted },
        );
        const cells: WindowStats[] = rows.map((r) => ({
          host: r.host,
          startMs: r.startMs,
          calls: r.calls,
          p50Ms: r.p50Ms,
          p99Ms: r.p99Ms,
          maxMs: r.maxMs,
        }));
        const episodes = hostEpisodes(cells, { windowMs, factor, minCalls });
        const grouped = groupByHost(rows, cells, minCalls);
        return {
          from: range.fromMs,
          to: range.toMs,
          windowSeconds,
          ...grouped,
          hosts: await withMeasuredHostModes(ctx.store, grouped.hosts, range),
          episodes,
          sampling,
        };
      },
    );
  });
}

type Win = HostWindow;

function groupByHost(
  rows: Awaited<ReturnType<typeof selectHostWindows>>,
  cells: readonly WindowStats[],
  minCalls: number,
): {
  hosts: { host: string; mode: string; calls: number; windows: Win[] }[];
  fleet: (Win & { hostMedianP99Ms: number | null })[];
} {
  const hosts = new Map<string, { host: string; mode: string; calls: number; windows: Win[] }>();
  const p99s = new Map<number, number[]>();
  const fleet: (Win & { hostMedianP99Ms: number | null })[] = [];
  rows.forEach((r, i) => {
    const w: Win = {
      startMs: r.startMs,
      calls: r.calls,
      p50Ms: r.p50Ms,
      p99Ms: r.p99Ms,
      maxMs: r.maxMs,
    };
    if (r.host === null) {
      fleet.push({ ...w, hostMedianP99Ms: null });
      return;
    }
    let h = hosts.get(r.host);
    if (!h)
      hosts.set(r.host, (h = { host: r.host, mode: r.mode ?? 'unknown', calls: 0, windows: [] }));
    h.calls += r.calls;
    h.windows.push(w);
    const c = cells[i];
    if (c && c.calls >= minCalls) p99s.set(c.startMs, [...(p99s.get(c.startMs) ?? []), c.p99Ms]);
  });
  for (const f of fleet) {
    const list = (p99s.get(f.startMs) ?? []).sort((a, b) => a - b);
    f.hostMedianP99Ms = list.length === 0 ? null : quantileInclusive(list, 0.5);
  }
  return { hosts: [...hosts.values()], fleet };
}
