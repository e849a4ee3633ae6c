import { Type, type Static } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { hostEpisodes, quantileInclusive, type WindowStats } from '@tailscope/analysis';
import type { ApiContext } from '../server/context';
import { badRequest } from '../server/errors';
import { selectHostWindows } from '../store/fanouts';
import { clampRange, optionalNumber, parseRange, RangeQuery, requireText } from './fanouts';

const MAX_WINDOWS = 10_000;

const HostsQuery = Type.Object({
  ...RangeQuery,
  leafService: Type.String({ description: 'Leaf service (required)' }),
  leafOperation: Type.String({ description: 'Leaf operation (required)' }),
  windowSeconds: Type.Optional(Type.Number({ description: 'Window length, seconds (default 60)' })),
  factor: Type.Optional(
    Type.Number({
      description: 'Episode: host p99 above factor x the median host p99 of the window (default 2)',
    }),
  ),
  minCalls: Type.Optional(
    Type.Integer({
      description: 'Windows with fewer calls for a host are not judged (default 10)',
    }),
  ),
});

const Window = Type.Object({
  startMs: Type.Number({ description: 'Window start, epoch ms' }),
  calls: Type.Integer(),
  p50Ms: Type.Number(),
  p99Ms: Type.Number(),
  maxMs: Type.Number(),
});

export function hostRoutes(app: FastifyInstance, ctx: ApiContext): void {
  app.get(
    '/api/v1/hosts',
    {
      schema: {
        summary:
          'Per-host call latency over time windows, with the episodes where a host stood out',
        querystring: HostsQuery,
        response: {
          200: Type.Object({
            from: Type.Number(),
            to: Type.Number(),
            windowSeconds: Type.Number(),
            hosts: Type.Array(
              Type.Object({
                host: Type.String(),
                mode: Type.String(),
                calls: Type.Integer(),
                windows: Type.Array(Window),
              }),
            ),
            fleet: Type.Array(
              Type.Object({
                ...Window.properties,
                hostMedianP99Ms: Type.Union([Type.Number(), Type.Null()]),
              }),
            ),
            episodes: Type.Array(
              Type.Object({
                host: Type.String(),
                startMs: Type.Number(),
                endMs: Type.Number(),
                windows: Type.Integer(),
                calls: Type.Integer(),
                worstP99Ms: Type.Number(),
                fleetP99Ms: Type.Number(),
              }),
            ),
          }),
        },
      },
    },
    async (req) => {
      const q = req.query as Static<typeof HostsQuery>;
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
      const rows = await selectHostWindows(
        ctx.store,
        { fromNs: range.fromNs, toNs: range.toNs, leafService, leafOperation },
        windowMs,
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
      return {
        from: range.fromMs,
        to: range.toMs,
        windowSeconds,
        ...groupByHost(rows, cells, minCalls),
        episodes,
      };
    },
  );
}

type Win = Static<typeof Window>;

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
