import { Type, type Static } from 'typebox';
import { SamplingInfo } from './sampling';
import { ErrorBody, Name, RangeQuery } from './bounds';

/** GET /api/v1/hosts: per-host call latency over time windows, and the episodes. */

/** Windows a query may ask for at most (range / windowSeconds). */
export const MAX_HOST_WINDOWS = 10_000;

export const HostsQuery = Type.Object({
  ...RangeQuery,
  leafService: Name('Leaf service (required)', 1),
  leafOperation: Name('Leaf operation (required)', 1),
  windowSeconds: Type.Optional(
    Type.Number({
      minimum: 0.001,
      maximum: 86_400,
      description: `Window length, seconds (default 60; at most ${MAX_HOST_WINDOWS} windows over the range)`,
    }),
  ),
  factor: Type.Optional(
    Type.Number({
      minimum: 1,
      maximum: 1000,
      description: 'Episode: host p99 above factor x the median host p99 of the window (default 2)',
    }),
  ),
  minCalls: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 1_000_000_000,
      description: 'Windows with fewer calls for a host are not judged (default 10)',
    }),
  ),
});
export type HostsQuery = Static<typeof HostsQuery>;

export const HostWindow = Type.Object({
  startMs: Type.Number({ description: 'Window start, epoch ms' }),
  calls: Type.Integer(),
  p50Ms: Type.Number(),
  p99Ms: Type.Number(),
  maxMs: Type.Number(),
});
export type HostWindow = Static<typeof HostWindow>;

export const HostSeries = Type.Object({
  host: Type.String(),
  mode: Type.String(),
  calls: Type.Integer(),
  windows: Type.Array(HostWindow),
});
export type HostSeries = Static<typeof HostSeries>;

export const FleetWindow = Type.Object({
  ...HostWindow.properties,
  hostMedianP99Ms: Type.Union([Type.Number(), Type.Null()]),
});
export type FleetWindow = Static<typeof FleetWindow>;

export const HostEpisode = Type.Object({
  host: Type.String(),
  startMs: Type.Number(),
  endMs: Type.Number(),
  windows: Type.Integer(),
  calls: Type.Integer(),
  worstP99Ms: Type.Number(),
  fleetP99Ms: Type.Number(),
});
export type HostEpisode = Static<typeof HostEpisode>;

export const HostsResponse = Type.Object({
  from: Type.Number(),
  to: Type.Number(),
  windowSeconds: Type.Number(),
  hosts: Type.Array(HostSeries),
  fleet: Type.Array(FleetWindow),
  episodes: Type.Array(HostEpisode),
  sampling: Type.Optional(SamplingInfo),
});
export type HostsResponse = Static<typeof HostsResponse>;

export const HostsRoute = {
  summary: 'Per-host call latency over time windows, with the episodes where a host stood out',
  querystring: HostsQuery,
  response: { 200: HostsResponse, 400: ErrorBody },
};
