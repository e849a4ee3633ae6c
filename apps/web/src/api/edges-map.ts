// GET /api/v1/edges for the service map: every caller -> callee operation edge (the contract in
// @tailscope/contracts edges.ts), decoded at the edge, and summed to service -> service edges.
import type * as C from '@tailscope/contracts';
import type { MapEdgeInput } from '@tailscope/charts';
import { getJson } from './client';
import { arr, num, obj, oneOf, optional, str, type Decoder } from './decode';
import type { TimeRange } from '../state/filters';

/** The fields of an edge the map reads. */
export type MapOperationEdge = Pick<
  C.Edge,
  | 'parentService'
  | 'parentOperation'
  | 'leafService'
  | 'leafOperation'
  | 'requests'
  | 'calls'
  | 'callsPerRequest'
  | 'structure'
  | 'concurrency'
  | 'callLatency'
>;
export interface EdgesMap {
  from: number;
  to: number;
  edges: MapOperationEdge[];
  hint?: string | undefined;
}

const STRUCTURES = ['parallel', 'pool', 'sequential', 'single'] as const;

export const decodeEdgesMap: Decoder<EdgesMap> = obj<EdgesMap>({
  from: num,
  to: num,
  edges: arr(
    obj<MapOperationEdge>({
      parentService: str,
      parentOperation: str,
      leafService: str,
      leafOperation: str,
      requests: num,
      calls: optional(num),
      callsPerRequest: obj({ p50: num, max: num }),
      structure: oneOf(STRUCTURES),
      concurrency: obj({ p50: num, max: num }),
      callLatency: obj({ p50: num, p95: num, p99: num, p999: num }),
    }),
  ),
  hint: optional(str),
});

export function fetchEdgesMap(r: TimeRange, signal: AbortSignal): Promise<EdgesMap> {
  return getJson(
    'edges',
    { query: { from: Math.floor(r.fromMs), to: Math.ceil(r.toMs) } },
    decodeEdgesMap,
    signal,
  );
}

/** Calls on an operation edge: the count when the server sends it, else requests x median. */
const callsOf = (e: MapOperationEdge): number =>
  e.calls ?? e.requests * Math.max(1, e.callsPerRequest.p50);

/**
 * Service -> service edges for the map: calls summed over operations (calls/s over the range
 * the server answered for), the worst operation's p99, the structure carrying most calls and
 * that structure's calls per request. Self-calls (a service calling itself) are left out.
 * Sorted by caller, then callee. O(edges log edges).
 */
export function toMapEdges(m: EdgesMap): MapEdgeInput[] {
  const seconds = Math.max(1e-3, (m.to - m.from) / 1000);
  const groups = new Map<string, MapOperationEdge[]>();
  for (const e of m.edges) {
    if (e.parentService === e.leafService || e.parentService === '') continue;
    const key = JSON.stringify([e.parentService, e.leafService]);
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  const out = [...groups.values()].map((es): MapEdgeInput => {
    const busiest = [...es].sort((a, b) => callsOf(b) - callsOf(a))[0] as MapOperationEdge;
    return {
      parentService: busiest.parentService,
      leafService: busiest.leafService,
      callsPerSecond: es.reduce((s, e) => s + callsOf(e), 0) / seconds,
      p99Ms: Math.max(...es.map((e) => e.callLatency.p99)),
      structure: busiest.structure,
      width: busiest.callsPerRequest.p50,
    };
  });
  return out.sort(
    (a, b) =>
      a.parentService.localeCompare(b.parentService) || a.leafService.localeCompare(b.leafService),
  );
}
