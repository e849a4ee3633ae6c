import { Type, type Static, type TSchema } from 'typebox';
import { API_PATHS, type EndpointName } from './paths';
import { CriticalPathQuery, CriticalPathResponse, CriticalPathRoute } from './critical-path';
import { EdgesQuery, EdgesResponse, EdgesRoute } from './edges';
import { EpisodesQuery, EpisodesResponse, EpisodesRoute } from './episodes';
import { FanoutsQuery, FanoutsResponse, FanoutsRoute } from './fanouts';
import { HostsQuery, HostsResponse, HostsRoute } from './hosts';
import { IncidentsQuery, IncidentsResponse, IncidentsRoute } from './incidents';
import { LeavesQuery, LeavesRoute } from './leaves';
import { DeleteSessionRoute, GetSessionRoute, PostSessionRoute, SessionState } from './session';
import { SessionLogin } from './session';
import { HealthRoute, ReadyRoute, StatsResponse, StatsRoute } from './stats';
import { StragglersQuery, StragglersResponse, StragglersRoute } from './stragglers';
import { Span, SpanParams, SpanRoute, TraceParams, TraceQuery, TraceRoute } from './traces';
import { TracesQuery, TracesResponse, TracesRoute } from './traces';
import { WhatIfBody, WhatIfResponse, WhatIfRoute } from './whatif';

/** The packed leaf calls (LEAVES_CONTENT_TYPE): bytes, not JSON; read with the analysis decoder. */
const PackedLeafCalls = Type.Unsafe<ArrayBuffer>({ type: 'string', format: 'binary' });

/**
 * Every endpoint of the REST contract: its path and method (API_PATHS), the schemas of its query
 * (`query`), path parameters (`params`), body and 200 answer (`response`), and the route
 * description the API registers (`route`: the same schemas, with summaries and error answers).
 */
export const ENDPOINTS = {
  health: { ...API_PATHS.health, route: HealthRoute, response: HealthRoute.response[200] },
  ready: { ...API_PATHS.ready, route: ReadyRoute, response: ReadyRoute.response[200] },
  openapi: { ...API_PATHS.openapi, route: { hide: true }, response: Type.Unknown() },
  stats: { ...API_PATHS.stats, route: StatsRoute, response: StatsResponse },
  fanouts: {
    ...API_PATHS.fanouts,
    route: FanoutsRoute,
    query: FanoutsQuery,
    response: FanoutsResponse,
  },
  edges: { ...API_PATHS.edges, route: EdgesRoute, query: EdgesQuery, response: EdgesResponse },
  stragglers: {
    ...API_PATHS.stragglers,
    route: StragglersRoute,
    query: StragglersQuery,
    response: StragglersResponse,
  },
  hosts: { ...API_PATHS.hosts, route: HostsRoute, query: HostsQuery, response: HostsResponse },
  episodes: {
    ...API_PATHS.episodes,
    route: EpisodesRoute,
    query: EpisodesQuery,
    response: EpisodesResponse,
  },
  incidents: {
    ...API_PATHS.incidents,
    route: IncidentsRoute,
    query: IncidentsQuery,
    response: IncidentsResponse,
  },
  leaves: {
    ...API_PATHS.leaves,
    route: LeavesRoute,
    query: LeavesQuery,
    response: PackedLeafCalls,
  },
  traces: { ...API_PATHS.traces, route: TracesRoute, query: TracesQuery, response: TracesResponse },
  trace: {
    ...API_PATHS.trace,
    route: TraceRoute,
    params: TraceParams,
    query: TraceQuery,
    response: TraceRoute.response[200],
  },
  span: { ...API_PATHS.span, route: SpanRoute, params: SpanParams, response: Span },
  criticalPath: {
    ...API_PATHS.criticalPath,
    route: CriticalPathRoute,
    query: CriticalPathQuery,
    response: CriticalPathResponse,
  },
  whatif: { ...API_PATHS.whatif, route: WhatIfRoute, body: WhatIfBody, response: WhatIfResponse },
  session: { ...API_PATHS.session, route: GetSessionRoute, response: SessionState },
  logIn: {
    ...API_PATHS.logIn,
    route: PostSessionRoute,
    body: SessionLogin,
    response: SessionState,
  },
  logOut: { ...API_PATHS.logOut, route: DeleteSessionRoute, response: SessionState },
} as const satisfies Record<
  EndpointName,
  {
    method: string;
    path: string;
    route: object;
    response: TSchema;
    query?: TSchema;
    params?: TSchema;
    body?: TSchema;
  }
>;

type Endpoints = typeof ENDPOINTS;

/** A query value as it goes on the wire: text parameters also take numbers (`from=1700…`). */
type Wire<V> = V extends string ? (string extends V ? string | number : V) : V;
type OptionalKeys<T> = {
  [K in keyof T]-?: T extends Record<K, T[K]> ? never : K;
}[keyof T];
type WireQuery<T> = { [K in Exclude<keyof T, OptionalKeys<T>>]: Wire<T[K]> } & {
  [K in OptionalKeys<T>]?: Wire<T[K]> | undefined;
};

/** The query parameters an endpoint takes (never for one without any). */
export type EndpointQuery<N extends EndpointName> = Endpoints[N] extends {
  query: infer Q extends TSchema;
}
  ? WireQuery<Static<Q>>
  : never;
/** The JSON body an endpoint takes (never for one without a body). */
export type EndpointBody<N extends EndpointName> = Endpoints[N] extends {
  body: infer B extends TSchema;
}
  ? Static<B>
  : never;
/** The 200 answer of an endpoint. */
export type EndpointResponse<N extends EndpointName> = Static<Endpoints[N]['response']>;
