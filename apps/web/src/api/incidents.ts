// GET /api/v1/incidents: co-occurring episodes joined along call edges, with ranked root causes
// (docs/analysis.md "Incidents"), and how the dashboard words them.
import { getJson } from './client';
import { arr, num, obj, oneOf, optional, str, withDefault, type Decoder } from './decode';
import { clock, timesSlower } from './episodes';
import type { TimeRange } from '../state/filters';

export interface IncidentCause {
  service: string;
  host?: string | undefined;
  operation?: string | undefined;
  score: number;
  cause: string;
  evidence: { kind: 'self' | 'network' | 'uninstrumented'; ratio: number; tiedWith: string[] };
}
export interface IncidentExemplar {
  traceId: string;
  durationMs: number;
}
export interface PathDiffRow {
  service: string;
  slowMs: number;
  typicalMs: number;
  deltaMs: number;
  networkDeltaMs: number;
}
export interface Incident {
  id: string;
  fromMs: number;
  toMs: number;
  requests: number;
  rootCauses: IncidentCause[];
  /** `kind: 'root'`: the requests' own series (a root operation), not calls into a service. */
  affected: { service: string; operation: string; ratio: number; kind?: 'root' | undefined }[];
  /** Optional in the contract (servers before it, incidents not analysed): [] when absent. */
  exemplars: { slow: IncidentExemplar[]; typical: IncidentExemplar[] };
  criticalPathDiff: PathDiffRow[];
}
export interface Incidents {
  incidents: Incident[];
  tieMargin?: number | undefined;
}

const exemplar = obj<IncidentExemplar>({ traceId: str, durationMs: num });

export const decodeIncidents: Decoder<Incidents> = obj<Incidents>({
  incidents: arr(
    obj<Incident>({
      id: str,
      fromMs: num,
      toMs: num,
      requests: num,
      rootCauses: arr(
        obj<IncidentCause>({
          service: str,
          host: optional(str),
          operation: optional(str),
          score: num,
          cause: str,
          evidence: obj<IncidentCause['evidence']>({
            kind: oneOf(['self', 'network', 'uninstrumented'] as const),
            ratio: num,
            tiedWith: arr(str),
          }),
        }),
      ),
      affected: arr(
        obj<Incident['affected'][number]>({
          service: str,
          operation: str,
          ratio: num,
          kind: optional(oneOf(['root'] as const)),
        }),
      ),
      exemplars: withDefault(
        obj<Incident['exemplars']>({ slow: arr(exemplar), typical: arr(exemplar) }),
        { slow: [], typical: [] },
      ),
      criticalPathDiff: withDefault(
        arr(
          obj<PathDiffRow>({
            service: str,
            slowMs: num,
            typicalMs: num,
            deltaMs: num,
            networkDeltaMs: num,
          }),
        ),
        [],
      ),
    }),
  ),
  tieMargin: optional(num),
});

export function fetchIncidents(r: TimeRange, signal: AbortSignal): Promise<Incidents> {
  return getJson(
    'incidents',
    { query: { from: Math.floor(r.fromMs), to: Math.ceil(r.toMs) } },
    decodeIncidents,
    signal,
  );
}

/**
 * The incident's headline: "customer, mysql slowed (up to 50x) from 05:04 to 05:06 UTC, 480
 * requests", the services being those whose calls slowed; with none (requests slower, no call
 * slower), "requests to frontend HTTP GET /dispatch slowed ...".
 */
export function describeIncident(i: Incident): string {
  const calls = i.affected.filter((a) => a.kind !== 'root');
  const services =
    calls.length > 0
      ? [...new Set(calls.map((a) => a.service))]
      : i.affected.map((a) => `requests to ${a.service} ${a.operation}`);
  const worst = Math.max(...(calls.length > 0 ? calls : i.affected).map((a) => a.ratio));
  const s = i.fromMs % 60_000 !== 0 || i.toMs % 60_000 !== 0;
  const up = Number.isFinite(worst) && worst > 0 ? ` (up to ${timesSlower(worst)})` : '';
  const n = i.requests === 1 ? '1 request' : `${String(i.requests)} requests`;
  return `${services.join(', ')} slowed${up} from ${clock(i.fromMs, s)} to ${clock(i.toMs, s)} UTC, ${n}`;
}

/** The top root cause in words: "Most likely: <cause> (96% of the extra time)", or why none. */
export function describeTopCause(i: Incident): string {
  const top = i.rootCauses[0];
  if (!top) return 'No root cause ranked: no request traces to compare with before it.';
  return `Most likely: ${top.cause} (${String(Math.round(top.score * 100))}% of the extra time).`;
}

const ms = (v: number): string => (Math.abs(v) >= 10 ? v.toFixed(0) : v.toFixed(1));

/**
 * The critical-path difference in words: "route +98 ms on the critical path (52 -> 150 ms per
 * request, 96 ms of it outside route's server spans)", for the services whose time grew by at
 * least 5% of the largest growth, at most `max`; empty when none grew.
 */
export function describePathDiff(i: Incident, max = 3): string[] {
  // Growth under 5% of the largest is noise beside it (route +0.2 ms next to mysql +71 ms).
  const top = Math.max(0, ...i.criticalPathDiff.map((r) => r.deltaMs));
  return i.criticalPathDiff
    .filter((r) => r.deltaMs > 0 && r.deltaMs >= 0.05 * top)
    .slice(0, max)
    .map((r) => {
      const net =
        r.networkDeltaMs > 0.5 * r.deltaMs
          ? `, ${ms(r.networkDeltaMs)} ms of it outside ${r.service}'s server spans`
          : '';
      return `${r.service} +${ms(r.deltaMs)} ms on the critical path (${ms(r.typicalMs)} -> ${ms(r.slowMs)} ms per request${net})`;
    });
}
